//! What the Chat view says, as pure functions (unit-tested): relative times, prices,
//! context lengths, the balance line, a conversation's title from its first message.

use crate::ui::format;

/// `updated_at` (RFC 3339) relative to `now`: "just now", "5 min ago", "3 h ago",
/// "yesterday", "4 days ago", then the date ("12 Mar 2026"). The raw text when it does not
/// parse.
pub fn relative_time(updated_at: &str, now: chrono::DateTime<chrono::Utc>) -> String {
    let Ok(then) = chrono::DateTime::parse_from_rfc3339(updated_at) else {
        return updated_at.to_owned();
    };
    let then = then.with_timezone(&chrono::Utc);
    let secs = (now - then).num_seconds();
    match secs {
        ..60 => "just now".to_owned(),
        60..3_600 => format!("{} min ago", secs / 60),
        3_600..86_400 => format!("{} h ago", secs / 3_600),
        86_400..172_800 => "yesterday".to_owned(),
        172_800..604_800 => format!("{} days ago", secs / 86_400),
        _ => then
            .with_timezone(&chrono::Local)
            .format("%-d %b %Y")
            .to_string(),
    }
}

/// Credits per token as credits per 1,000 tokens: 0.002 → "2", 0.0005 → "0.5",
/// 0.00001 → "0.01".
pub fn per_thousand(credits_per_token: f64) -> String {
    let value = credits_per_token * 1000.0;
    if value >= 0.1 || value == 0.0 {
        format::thousands(value)
    } else {
        let text = format!("{value:.4}");
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// "2 / 8 credits per 1K tokens in / out".
pub fn price_line(prompt_credits_per_token: f64, completion_credits_per_token: f64) -> String {
    format!(
        "{} / {} credits per 1K tokens in / out",
        per_thousand(prompt_credits_per_token),
        per_thousand(completion_credits_per_token)
    )
}

/// Tokens of context, shortened: 128000 → "128K context", 8192 → "8.2K context",
/// 1048576 → "1M context".
pub fn context_label(context_length: u64) -> String {
    let short = if context_length >= 1_000_000 {
        format!("{}M", short_number(context_length as f64 / 1e6))
    } else if context_length >= 1_000 {
        format!("{}K", short_number(context_length as f64 / 1e3))
    } else {
        context_length.to_string()
    };
    format!("{short} context")
}

/// Whole numbers from 10 up, else one decimal at most.
fn short_number(value: f64) -> String {
    if value >= 10.0 {
        format!("{}", value.round() as u64)
    } else {
        let text = format!("{value:.1}");
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// "Available 8,340 · Reserved 12 · Total 8,352".
pub fn balance_line(available: f64, reserved: f64, total: f64) -> String {
    format!(
        "Available {} · Reserved {} · Total {}",
        format::thousands(available),
        format::thousands(reserved),
        format::thousands(total)
    )
}

/// A reply's cost: "0.4 credits", "1 credit".
pub fn cost_label(credits: f64) -> String {
    format::credits(credits)
}

/// "1,234 tokens in · 567 out".
pub fn tokens_line(prompt_tokens: u64, completion_tokens: u64) -> String {
    format!(
        "{} tokens in · {} out",
        format::thousands(prompt_tokens as f64),
        format::thousands(completion_tokens as f64)
    )
}

/// Most characters of a title made from the first message.
pub const TITLE_MAX_CHARS: usize = 48;

/// A new conversation's title: the first words of its first message (up to
/// [`TITLE_MAX_CHARS`], cut at a word), Markdown marks and line breaks removed.
pub fn title_from_message(text: &str) -> String {
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, '#' | '*' | '_' | '`' | '>')))
        .filter(|w| !w.is_empty())
        .collect();
    let mut title = String::new();
    for word in words {
        let extra = usize::from(!title.is_empty()) + word.chars().count();
        if title.chars().count() + extra > TITLE_MAX_CHARS {
            if title.is_empty() {
                title = word.chars().take(TITLE_MAX_CHARS - 1).collect();
            }
            title.push('…');
            return title;
        }
        if !title.is_empty() {
            title.push(' ');
        }
        title.push_str(word);
    }
    if title.is_empty() {
        "New conversation".to_owned()
    } else {
        title
    }
}

/// Rough token count of `text` (about four characters a token, as the usual tokenizers
/// give for English and code); only for the cost hint and the context trim.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone as _;

    #[test]
    fn relative_times() {
        let now = chrono::Utc
            .with_ymd_and_hms(2026, 11, 25, 12, 0, 0)
            .unwrap();
        let ago = |secs: i64| (now - chrono::Duration::seconds(secs)).to_rfc3339();
        assert_eq!(relative_time(&ago(5), now), "just now");
        assert_eq!(
            relative_time(&ago(-30), now),
            "just now",
            "a clock a bit ahead"
        );
        assert_eq!(relative_time(&ago(5 * 60), now), "5 min ago");
        assert_eq!(relative_time(&ago(3 * 3600 + 10), now), "3 h ago");
        assert_eq!(relative_time(&ago(30 * 3600), now), "yesterday");
        assert_eq!(relative_time(&ago(4 * 86_400 + 5), now), "4 days ago");
        assert!(relative_time(&ago(40 * 86_400), now).ends_with("2026"));
        assert_eq!(relative_time("not a time", now), "not a time");
    }

    #[test]
    fn prices_per_thousand_tokens() {
        assert_eq!(per_thousand(0.002), "2");
        assert_eq!(per_thousand(0.008), "8");
        assert_eq!(per_thousand(0.0015), "1.5");
        assert_eq!(per_thousand(0.00001), "0.01");
        assert_eq!(per_thousand(0.0), "0");
        assert_eq!(
            price_line(0.002, 0.008),
            "2 / 8 credits per 1K tokens in / out"
        );
    }

    #[test]
    fn context_lengths() {
        assert_eq!(context_label(128_000), "128K context");
        assert_eq!(context_label(131_072), "131K context");
        assert_eq!(context_label(8_192), "8.2K context");
        assert_eq!(context_label(4_000), "4K context");
        assert_eq!(context_label(1_048_576), "1M context");
        assert_eq!(context_label(512), "512 context");
    }

    #[test]
    fn balance_and_costs() {
        assert_eq!(
            balance_line(8340.0, 12.0, 8352.0),
            "Available 8,340 · Reserved 12 · Total 8,352"
        );
        assert_eq!(cost_label(0.4), "0.4 credits");
        assert_eq!(cost_label(1.0), "1 credit");
        assert_eq!(tokens_line(1234, 567), "1,234 tokens in · 567 out");
    }

    #[test]
    fn titles_from_first_messages() {
        assert_eq!(
            title_from_message("How do I  read a file\nin Rust?"),
            "How do I read a file in Rust?"
        );
        assert_eq!(title_from_message("## **Bold** `code`"), "Bold code");
        let long = "word ".repeat(30);
        let title = title_from_message(&long);
        assert!(title.ends_with('…') && title.chars().count() <= TITLE_MAX_CHARS + 1);
        assert!(!title.contains("  "));
        let one_long_word = "x".repeat(100);
        assert_eq!(
            title_from_message(&one_long_word).chars().count(),
            TITLE_MAX_CHARS
        );
        assert_eq!(title_from_message("  \n "), "New conversation");
    }

    #[test]
    fn token_estimates() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
    }
}
