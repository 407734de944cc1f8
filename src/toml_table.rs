//! A table of ratewatch.toml as the module that owns it reads it: `[alerts]`, `[refresh]`,
//! `[columns]` and `[email]` are each checked by their own module, which then needs nothing
//! of the settings (they read the file, and hand each table to its module).

use std::collections::BTreeMap;

/// A table of ratewatch.toml, each key and value with where it is.
pub type Table = BTreeMap<toml::Spanned<String>, toml::Spanned<toml::Value>>;

/// A mistake in the file: where it is (a byte range) and what it is.
pub type Mistake = (std::ops::Range<usize>, String);
