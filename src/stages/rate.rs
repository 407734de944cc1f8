//! Company UUID → its rating, from the current endpoint (service.md §4.3) or, for accounts that
//! still need it, the deprecated one (4.4). Both become one [`model::Rating`].
//!
//! Deciding what changed is not done here: that needs the history, which the store keeps
//! (`model::Change::classify` holds the rule).

use uuid::Uuid;

use crate::api::{ApiError, Client};
use crate::model;

/// Which rating endpoint to use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum RatingEndpoint {
    /// GET /v2/companies/{id}/ratings
    #[default]
    Current,
    /// GET /v2/ratings/company/{id}
    Deprecated,
}

impl RatingEndpoint {
    /// The endpoint's name in call counts.
    pub fn name(self) -> &'static str {
        match self {
            RatingEndpoint::Current => "rating",
            RatingEndpoint::Deprecated => "rating_deprecated",
        }
    }
}

/// Fetches one company's rating, checked against the question: an answer for another
/// company fails (it would color the wrong customer).
pub async fn fetch(
    client: &Client,
    endpoint: RatingEndpoint,
    company: Uuid,
) -> Result<model::Rating, ApiError> {
    let rating: model::Rating = match endpoint {
        RatingEndpoint::Current => client.rating(company, None).await?.into(),
        RatingEndpoint::Deprecated => client.rating_deprecated(company).await?.into(),
    };
    if rating.company_id != company {
        return Err(ApiError::another_company(company, rating.company_id));
    }
    Ok(rating)
}
