//! The sandbox's tokenizer: a word (letters, digits, `_`) or any other single character is
//! one token; whitespace belongs to the token after it. Splitting keeps every character, so
//! the streamed pieces concatenate to exactly the answer.

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The tokens of `text`, each with the whitespace before it; trailing whitespace joins the
/// last token, and whitespace-only text is one token.
pub(crate) fn split_tokens(text: &str) -> Vec<&str> {
    let mut tokens = Vec::new();
    let mut token_start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if is_word_char(c) {
            while chars.next_if(|&(_, next)| is_word_char(next)).is_some() {}
        }
        let end = chars.peek().map_or(text.len(), |&(index, _)| index);
        tokens.push(&text[token_start..end]);
        token_start = end;
    }
    if token_start < text.len() {
        match tokens.last_mut() {
            Some(last) => {
                let last_start = token_start - last.len();
                *last = &text[last_start..];
            }
            None => tokens.push(text),
        }
    }
    tokens
}

pub(crate) fn count_tokens(text: &str) -> u64 {
    split_tokens(text).len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_punctuation_are_tokens_and_nothing_is_lost() {
        let text = "Hello, world!  fn main() {}\n";
        let tokens = split_tokens(text);
        assert_eq!(
            tokens,
            vec![
                "Hello", ",", " world", "!", "  fn", " main", "(", ")", " {", "}\n"
            ]
        );
        assert_eq!(tokens.concat(), text);
        assert_eq!(count_tokens("snake_case ünïcode"), 2);
        assert_eq!(count_tokens(""), 0);
        assert_eq!(split_tokens("  "), vec!["  "]);
        assert_eq!(split_tokens(" a"), vec![" a"]);
    }
}
