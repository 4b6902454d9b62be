//! A reply split into Markdown prose and fenced code blocks, so every code block gets the
//! studio's own Copy button (egui_commonmark's copies through egui's clipboard only, and
//! its button has no readable name). Pure: no egui.
//!
//! Only top-level fences are taken out (indented up to three spaces, as CommonMark allows);
//! a fence inside a blockquote or indented deeper stays in the Markdown and is drawn by
//! `ui::formatted_text`. An unclosed fence runs to the end of the text, which is what a reply
//! still streaming in looks like.

/// One piece of a message, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Segment {
    /// Markdown without top-level fenced code.
    Markdown(String),
    Code {
        /// The fence's info string's first word (`rust` in "```rust ignore"), if any.
        lang: Option<String>,
        /// The code without the fences, indentation removed as CommonMark does.
        code: String,
        /// The closing fence has arrived (false while a reply is still streaming it in).
        closed: bool,
    },
}

/// An opening fence: its character, length and indentation.
struct Fence {
    ch: char,
    len: usize,
    indent: usize,
    lang: Option<String>,
}

fn leading_spaces(line: &str) -> usize {
    line.chars().take_while(|c| *c == ' ').count()
}

fn opening_fence(line: &str) -> Option<Fence> {
    let indent = leading_spaces(line);
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let ch = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = rest.chars().take_while(|c| *c == ch).count();
    if len < 3 {
        return None;
    }
    let info = rest[len..].trim();
    // A backtick fence's info string may not contain backticks (that is inline code).
    if ch == '`' && info.contains('`') {
        return None;
    }
    let lang = info.split_whitespace().next().map(str::to_owned);
    Some(Fence {
        ch,
        len,
        indent,
        lang,
    })
}

fn closes(fence: &Fence, line: &str) -> bool {
    let indent = leading_spaces(line);
    if indent > 3 {
        return false;
    }
    let rest = line[indent..].trim_end();
    let run = rest.chars().take_while(|c| *c == fence.ch).count();
    run >= fence.len && run == rest.chars().count()
}

/// Remove up to `indent` leading spaces (a fence's content is de-indented by as much as
/// the opening fence was).
fn dedent(line: &str, indent: usize) -> &str {
    let spaces = leading_spaces(line).min(indent);
    &line[spaces..]
}

/// Split `text` into Markdown and fenced code, in order. Empty Markdown between blocks is
/// left out; the concatenation of the pieces' text loses only the fence lines.
pub fn split_segments(text: &str) -> Vec<Segment> {
    let mut segments = Vec::new();
    let mut prose = String::new();
    let mut open: Option<(Fence, String)> = None;
    for line in text.split_inclusive('\n') {
        let bare = line.strip_suffix('\n').unwrap_or(line);
        let bare = bare.strip_suffix('\r').unwrap_or(bare);
        match open.as_mut() {
            Some((fence, code)) => {
                if closes(fence, bare) {
                    let (fence, code) = open.take().expect("checked above");
                    segments.push(Segment::Code {
                        lang: fence.lang,
                        code,
                        closed: true,
                    });
                } else {
                    code.push_str(dedent(bare, fence.indent));
                    code.push('\n');
                }
            }
            None => match opening_fence(bare) {
                Some(fence) => {
                    if !prose.trim().is_empty() {
                        segments.push(Segment::Markdown(std::mem::take(&mut prose)));
                    }
                    prose.clear();
                    open = Some((fence, String::new()));
                }
                None => prose.push_str(line),
            },
        }
    }
    if let Some((fence, code)) = open {
        segments.push(Segment::Code {
            lang: fence.lang,
            code,
            closed: false,
        });
    } else if !prose.trim().is_empty() {
        segments.push(Segment::Markdown(prose));
    }
    segments
}

/// The code blocks of `text` (what the Copy buttons copy), in order.
pub fn code_blocks(text: &str) -> Vec<String> {
    split_segments(text)
        .into_iter()
        .filter_map(|segment| match segment {
            Segment::Code { code, .. } => Some(code),
            Segment::Markdown(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(lang: Option<&str>, code: &str, closed: bool) -> Segment {
        Segment::Code {
            lang: lang.map(str::to_owned),
            code: code.to_owned(),
            closed,
        }
    }

    #[test]
    fn prose_code_prose() {
        let text =
            "Here is how:\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\nThat's it.\n";
        assert_eq!(
            split_segments(text),
            vec![
                Segment::Markdown("Here is how:\n\n".into()),
                code(
                    Some("rust"),
                    "fn main() {\n    println!(\"hi\");\n}\n",
                    true
                ),
                Segment::Markdown("\nThat's it.\n".into()),
            ]
        );
    }

    #[test]
    fn a_fence_still_streaming_runs_to_the_end() {
        let text = "Try this:\n```python\nprint(1)\nprin";
        assert_eq!(
            split_segments(text),
            vec![
                Segment::Markdown("Try this:\n".into()),
                code(Some("python"), "print(1)\nprin\n", false),
            ]
        );
        // Only the opening fence so far: an empty, open block.
        assert_eq!(
            split_segments("```"),
            vec![code(None, "", false)],
            "an opening fence alone"
        );
    }

    #[test]
    fn tildes_longer_fences_and_info_strings() {
        let text = "~~~~ js title=x\n~~~\nstill code\n~~~~\n";
        assert_eq!(
            split_segments(text),
            vec![code(Some("js"), "~~~\nstill code\n", true)]
        );
        // A backtick fence is not closed by tildes, nor by a shorter run.
        let text = "````\n```\n~~~\n````\n";
        assert_eq!(split_segments(text), vec![code(None, "```\n~~~\n", true)]);
    }

    #[test]
    fn indentation_is_removed_as_far_as_the_fence_was_indented() {
        let text = "  ```\n    two more\n  x\n ```\n";
        assert_eq!(
            split_segments(text),
            vec![code(None, "  two more\nx\n", true)]
        );
    }

    #[test]
    fn not_fences() {
        // Four spaces: an indented code block, left to the Markdown renderer.
        let text = "    ```\n    code\n";
        assert_eq!(split_segments(text), vec![Segment::Markdown(text.into())]);
        // Inline code with backticks in the info string is no fence.
        let text = "``` a ` b\nnot code\n";
        assert_eq!(split_segments(text), vec![Segment::Markdown(text.into())]);
        // Two backticks are inline code.
        assert_eq!(
            split_segments("``x``\n"),
            vec![Segment::Markdown("``x``\n".into())]
        );
    }

    #[test]
    fn windows_line_ends_and_several_blocks() {
        let text = "a\r\n```sh\r\nls\r\n```\r\nb\n```\ncd\n```";
        assert_eq!(
            code_blocks(text),
            vec!["ls\n".to_owned(), "cd\n".to_owned()]
        );
    }

    #[test]
    fn empty_and_plain_text() {
        assert!(split_segments("").is_empty());
        assert!(split_segments("\n\n").is_empty());
        assert_eq!(
            split_segments("just words"),
            vec![Segment::Markdown("just words".into())]
        );
    }
}
