//! An `ApiError` as a person reads it: what the service said (or what happened), without
//! HTTP status numbers, machine codes or transport text. The full `Display` form keeps
//! those for the log and for Details expanders.

use crate::api::ApiError;

/// What happened, in a sentence: the service's own message for a refusal, else words for
/// the status; for a transport problem, what it means.
pub fn error_in_words(error: &ApiError) -> String {
    match error {
        ApiError::Status {
            status, message, ..
        } => {
            let message = message.trim();
            if message.is_empty() {
                status_in_words(*status).to_owned()
            } else {
                sentence(message)
            }
        }
        ApiError::Connect(_) => "The service could not be reached.".to_owned(),
        ApiError::NoResponse(_) => {
            "The service did not answer (the request may still have been processed).".to_owned()
        }
        ApiError::Decode(_) => "The service's answer could not be read.".to_owned(),
        ApiError::MissingJobHandle => {
            "The service accepted the request but gave no job to follow.".to_owned()
        }
        // Both are written by the studio itself, already in words.
        ApiError::Io(message) | ApiError::Invalid(message) => sentence(message),
    }
}

/// Words for a status the service sent no message with.
fn status_in_words(status: u16) -> &'static str {
    match status {
        400 | 422 => "The service could not accept the request.",
        401 => "The service did not accept the API key.",
        402 => "There are not enough credits.",
        403 => "The service does not allow this.",
        404 => "The service does not know it.",
        409 => "The service says it conflicts with its current state.",
        413 => "The file is too large for the service.",
        429 => "The service is busy with too many requests.",
        500..=599 => "The service had a problem.",
        _ => "The service refused the request.",
    }
}

/// `text` as a sentence: capitalised and ending in a full stop. A text that starts with a
/// file's name ("notes.png: …") keeps the name as it is written.
fn sentence(text: &str) -> String {
    let text = text.trim();
    let mut chars = text.chars();
    let Some(first) = chars.next() else {
        return String::new();
    };
    let first_word = text.split([' ', ':']).next().unwrap_or_default();
    let names_a_file = first_word.contains('.') && !first_word.ends_with('.');
    let mut out: String = if names_a_file {
        text.to_owned()
    } else {
        first.to_uppercase().chain(chars).collect()
    };
    if !out.ends_with(['.', '!', '?', '…']) {
        out.push('.');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_name_at_the_start_keeps_its_case() {
        let refused = ApiError::Invalid("notes.png: unrecognised image format".into());
        assert_eq!(
            error_in_words(&refused),
            "notes.png: unrecognised image format."
        );
        let plain = ApiError::Invalid("a Visual DNA needs a name".into());
        assert_eq!(error_in_words(&plain), "A Visual DNA needs a name.");
    }

    fn status(status: u16, message: &str) -> ApiError {
        ApiError::Status {
            status,
            message: message.to_owned(),
            code: Some("NOT_FOUND".to_owned()),
            retry_after_secs: None,
        }
    }

    #[test]
    fn no_status_numbers_or_codes_reach_the_words() {
        let said = error_in_words(&status(404, "generation not found"));
        assert_eq!(said, "Generation not found.");
        let bare = error_in_words(&status(404, ""));
        assert_eq!(bare, "The service does not know it.");
        for text in [said, bare] {
            assert!(
                !text.contains("404") && !text.contains("NOT_FOUND"),
                "{text}"
            );
        }
        let refused = error_in_words(&ApiError::Connect("tcp connect error: refused".into()));
        assert!(!refused.contains("tcp"), "{refused}");
    }
}
