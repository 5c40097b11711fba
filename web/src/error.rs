//! What a request that fails shows: a page with the status and a sentence,
//! escaped like every other page. Internal errors are logged and shown
//! without their details.

use crate::render::{ErrorPage, Me};
use askama::Template;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum WebError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    BadRequest(String),
    /// Too many failed sign-ins: try again after `retry_after` seconds.
    #[error("{message}")]
    TooManyRequests { message: String, retry_after: i64 },
    /// The server cannot take the request now (every turn at checking a
    /// password is taken): try again after `retry_after` seconds.
    #[error("{message}")]
    Busy { message: String, retry_after: i64 },
    /// Not signed in: go to the sign-in page, then back to `next`.
    #[error("sign-in needed")]
    SignIn { next: String },
    #[error("{0}")]
    Internal(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl WebError {
    fn status(&self) -> StatusCode {
        match self {
            WebError::NotFound(_) => StatusCode::NOT_FOUND,
            WebError::Forbidden(_) => StatusCode::FORBIDDEN,
            WebError::BadRequest(_) => StatusCode::BAD_REQUEST,
            WebError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            WebError::Busy { .. } => StatusCode::SERVICE_UNAVAILABLE,
            WebError::SignIn { .. } => StatusCode::SEE_OTHER,
            WebError::Internal(_) | WebError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for WebError {
    fn into_response(self) -> Response {
        if let WebError::SignIn { next } = &self {
            let to = format!("/login?next={}", crate::render::url_component(next));
            return Redirect::to(&to).into_response();
        }
        let status = self.status();
        let message = match &self {
            WebError::Internal(_) | WebError::Store(_) => {
                tracing::error!(error = %self, "request failed");
                "Something went wrong on the server; the log says what.".to_owned()
            }
            other => other.to_string(),
        };
        let page = ErrorPage {
            me: Me::anonymous(),
            status: status.as_u16(),
            reason: status.canonical_reason().unwrap_or("Error"),
            message,
        };
        let mut response = match page.render() {
            Ok(html) => (status, Html(html)).into_response(),
            Err(_) => status.into_response(),
        };
        if let WebError::TooManyRequests { retry_after, .. } | WebError::Busy { retry_after, .. } =
            &self
        {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(*retry_after),
            );
        }
        response
    }
}

/// Any path the application does not have.
pub async fn not_found() -> WebError {
    WebError::NotFound("There is no such page.".to_owned())
}
