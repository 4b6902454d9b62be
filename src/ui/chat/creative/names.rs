//! What a creative chat conversation is called on screen. The service names every new
//! conversation "API Chat - <date>", which tells a list of them apart by nothing; a
//! conversation the service named that way is shown by its first question instead. A name
//! the person gave (anything else) is kept. Display only: nothing is renamed on the service.

use crate::api::creative_chat::ChatConversation;

/// Characters of the first question a conversation is called by.
pub const TITLE_CHARS: usize = 60;

/// Whether `name` is the service's automatic name ("API Chat - 2026-03-10", or blank).
pub fn is_service_default_name(name: &str) -> bool {
    let name = name.trim();
    if name.is_empty() || name.eq_ignore_ascii_case("API Chat") {
        return true;
    }
    let Some(rest) = name.strip_prefix("API Chat - ") else {
        return false;
    };
    chrono::NaiveDate::parse_from_str(rest.trim(), "%Y-%m-%d").is_ok()
}

/// The conversation's displayed title: its first question when the service named it
/// automatically and the question is known, else the service's name.
pub fn conversation_title(conversation: &ChatConversation, first_question: Option<&str>) -> String {
    let question = first_question.map(str::trim).filter(|q| !q.is_empty());
    match question {
        Some(question) if is_service_default_name(&conversation.name) => {
            crate::ui::job_wording::short_title(question, TITLE_CHARS)
        }
        _ => conversation.display_name().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conversation(name: &str) -> ChatConversation {
        ChatConversation {
            session_id: "s1".into(),
            name: name.into(),
            last_activity: None,
            created_at: None,
        }
    }

    #[test]
    fn the_service_default_name_gives_way_to_the_first_question() {
        let question = Some("Three names for a harbour café\nwith a nautical theme");
        assert_eq!(
            conversation_title(&conversation("API Chat - 2026-03-10"), question),
            "Three names for a harbour café"
        );
        // Not read yet: the service's name stands.
        assert_eq!(
            conversation_title(&conversation("API Chat - 2026-03-10"), None),
            "API Chat - 2026-03-10"
        );
        // A name the person chose is theirs.
        assert_eq!(
            conversation_title(&conversation("Café names"), question),
            "Café names"
        );
        assert!(!is_service_default_name("API Chat - about boats"));
    }
}
