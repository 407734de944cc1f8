-- Smaller input rows, and no index that takes them in the order of the user's references.
--
-- `inputs_by_ref` indexed the rows by the user's own reference. References arrive in
-- whatever order the file has them (an export sorted by name gives them in random order),
-- so each new row took a random page of this index, and a commit per second wrote most of
-- its pages again: a 100,000-row first run from such a file wrote 22 % more than from the
-- same rows sorted by reference. It also took 19 bytes a row. A lookup by reference
-- (`history REF`, decisions given by reference) now reads `inputs` whole, all the
-- references asked at once, a fraction of a second at a million rows.
--
-- `inputs.digest` was a hash of every field, 16 bytes a row, by which a row given again
-- was found; the fields themselves are compared now. The keys of `input_keys` become a
-- hash of the fields: the table is emptied here and filled again by ratewatch, from the
-- stored rows, as soon as the upgrade is done.

DROP INDEX inputs_by_ref;
ALTER TABLE inputs DROP COLUMN digest;
DELETE FROM input_keys;
