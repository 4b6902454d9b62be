//! The coding-assistant API's refusals in words a person understands. The service's own
//! message is kept after the sentence (and status and type follow in the error's text), so
//! nothing is lost for the details view or the log.

use crate::api::ApiError;

/// The sentence for a status the person can act on, if it is one.
fn sentence(status: u16) -> Option<&'static str> {
    Some(match status {
        401 => "The API key was not accepted: check the key in Settings.",
        402 => "Not enough credits for this: top up the balance or pick a cheaper model.",
        // Uploads and chat bodies both meet it; the service's words say which limit.
        413 => {
            "That is too large for the service (files up to 500 MB; a chat message with \
                its attachments must be smaller)."
        }
        429 => "Too many requests right now: wait a moment, then try again.",
        _ => return None,
    })
}

/// Rewrite a `Status` error's message for 401, 402, 413 and 429; others are unchanged.
pub fn explain(error: ApiError) -> ApiError {
    match error {
        ApiError::Status {
            status,
            message,
            code,
            retry_after_secs,
        } => {
            let message = match sentence(status) {
                Some(sentence) if message.trim().is_empty() => sentence.to_owned(),
                Some(sentence) if message.contains(sentence) => message,
                Some(sentence) => format!("{sentence} The service said: {}", message.trim()),
                None => message,
            };
            ApiError::Status {
                status,
                message,
                code,
                retry_after_secs,
            }
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(status: u16, message: &str) -> ApiError {
        ApiError::Status {
            status,
            message: message.into(),
            code: None,
            retry_after_secs: None,
        }
    }

    #[test]
    fn actionable_statuses_get_a_sentence_and_keep_the_service_words() {
        let e = explain(status(401, "Invalid API key"));
        assert!(
            e.to_string().starts_with("The API key was not accepted"),
            "{e}"
        );
        assert!(e.to_string().contains("Invalid API key"), "{e}");
        assert!(
            explain(status(402, ""))
                .to_string()
                .contains("Not enough credits")
        );
        assert!(explain(status(413, "x")).to_string().contains("too large"));
        assert!(explain(status(429, "")).to_string().contains("wait"));
        // Explaining twice does not repeat the sentence.
        let twice = explain(explain(status(429, "")));
        assert_eq!(twice.to_string().matches("wait a moment").count(), 1);
        assert_eq!(explain(status(500, "boom")), status(500, "boom"));
        assert_eq!(
            explain(ApiError::Connect("refused".into())),
            ApiError::Connect("refused".into())
        );
    }
}
