-- `ratings_by_company` indexed `(company, id)`. An index entry always ends with the row's
-- id, so `id` was there twice: (company, id, id). Indexed by `company` alone, its entries
-- are in the same order, (company, id), and serve every lookup as before (a company's
-- latest rating, the latest before another), a quarter smaller: 3.7 bytes a first-run
-- row.

DROP INDEX ratings_by_company;
CREATE INDEX ratings_by_company ON ratings (company);
