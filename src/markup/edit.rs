//! The Markdown editor's toolbar as pure text transformations: each takes the text and the
//! selection (in characters, as egui's text cursor counts) and gives the new text and the
//! selection to show. Inline formats (bold, italic, link) wrap the selection and toggle off
//! when it is already wrapped; line formats (headings, lists, quote) act on every line the
//! selection touches; a table is inserted, or built from the selected lines.

use std::ops::Range;

/// One toolbar button.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `#`, `##`, `###` (1-3).
    Heading(u8),
    Bold,
    Italic,
    Link,
    BulletList,
    NumberedList,
    Quote,
    Table,
}

impl Format {
    /// Every button, in toolbar order.
    pub const ALL: [Format; 10] = [
        Format::Heading(1),
        Format::Heading(2),
        Format::Heading(3),
        Format::Bold,
        Format::Italic,
        Format::Link,
        Format::BulletList,
        Format::NumberedList,
        Format::Quote,
        Format::Table,
    ];

    /// The button's text.
    pub fn label(self) -> &'static str {
        match self {
            Format::Heading(1) => "H1",
            Format::Heading(2) => "H2",
            Format::Heading(_) => "H3",
            Format::Bold => "B",
            Format::Italic => "I",
            Format::Link => "Link",
            Format::BulletList => "• List",
            Format::NumberedList => "1. List",
            Format::Quote => "Quote",
            Format::Table => "Table",
        }
    }

    /// The button's accessible name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Heading(1) => "Heading 1",
            Format::Heading(2) => "Heading 2",
            Format::Heading(_) => "Heading 3",
            Format::Bold => "Bold",
            Format::Italic => "Italic",
            Format::Link => "Link",
            Format::BulletList => "Bulleted list",
            Format::NumberedList => "Numbered list",
            Format::Quote => "Quote",
            Format::Table => "Table",
        }
    }

    /// The button's tooltip (with its shortcut).
    pub fn hint(self) -> &'static str {
        match self {
            Format::Bold => "Bold (Ctrl+B)",
            Format::Italic => "Italic (Ctrl+I)",
            Format::Link => "Link (Ctrl+K)",
            Format::Table => "Table (a template, or the selected lines as rows)",
            other => other.name(),
        }
    }
}

/// The text after a toolbar action and what to select in it (characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edited {
    pub text: String,
    pub selection: Range<usize>,
}

/// Apply `format` to `selection` of `text`. The selection may be given in either order and
/// is clamped to the text.
pub fn apply(text: &str, selection: Range<usize>, format: Format) -> Edited {
    let chars = text.chars().count();
    let (a, b) = (selection.start.min(chars), selection.end.min(chars));
    let (start, end) = (a.min(b), a.max(b));
    let (start, end) = (byte_at(text, start), byte_at(text, end));
    let edited = match format {
        Format::Bold => toggle_emphasis(text, start, end, Emphasis::Bold),
        Format::Italic => toggle_emphasis(text, start, end, Emphasis::Italic),
        Format::Link => link(text, start, end),
        Format::Heading(level) => {
            let prefix = "#".repeat(usize::from(level.clamp(1, 3)));
            edit_lines(text, start, end, |lines| toggle_heading(lines, &prefix))
        }
        Format::BulletList => edit_lines(text, start, end, toggle_bullets),
        Format::NumberedList => edit_lines(text, start, end, toggle_numbers),
        Format::Quote => edit_lines(text, start, end, toggle_quote),
        Format::Table => table(text, start, end),
    };
    // Byte positions to character positions.
    let to_char = |byte: usize| edited.text[..byte].chars().count();
    Edited {
        selection: to_char(edited.selection.start)..to_char(edited.selection.end),
        text: edited.text,
    }
}

/// Byte offset of character `index` (the end when past it).
fn byte_at(text: &str, index: usize) -> usize {
    text.char_indices()
        .nth(index)
        .map_or(text.len(), |(byte, _)| byte)
}

/// `text[..at] + insert + text[end..]`, with the byte range of the new selection.
fn splice(text: &str, at: Range<usize>, insert: &str, selection: Range<usize>) -> Edited {
    let mut out = String::with_capacity(text.len() + insert.len());
    out.push_str(&text[..at.start]);
    out.push_str(insert);
    out.push_str(&text[at.end..]);
    Edited {
        text: out,
        selection,
    }
}

// ---- bold and italic ----------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Emphasis {
    Bold,
    Italic,
}

impl Emphasis {
    fn marker(self) -> &'static str {
        match self {
            Emphasis::Bold => "**",
            Emphasis::Italic => "*",
        }
    }
    fn placeholder(self) -> &'static str {
        match self {
            Emphasis::Bold => "bold text",
            Emphasis::Italic => "italic text",
        }
    }
    /// Whether `stars` asterisks around a span make it this emphasis (`***x***` is both).
    fn is_on(self, stars: usize) -> bool {
        match self {
            Emphasis::Bold => stars == 2 || stars >= 3,
            Emphasis::Italic => stars == 1 || stars >= 3,
        }
    }
}

fn stars_before(text: &str, at: usize) -> usize {
    text[..at].chars().rev().take_while(|c| *c == '*').count()
}

fn stars_after(text: &str, at: usize) -> usize {
    text[at..].chars().take_while(|c| *c == '*').count()
}

fn toggle_emphasis(text: &str, start: usize, end: usize, emphasis: Emphasis) -> Edited {
    let marker = emphasis.marker();
    let width = marker.len();
    let selected = &text[start..end];

    // The selection includes its markers: `**word**` selected.
    let inner_stars = stars_after(selected, 0).min(stars_before(selected, selected.len()));
    if inner_stars * 2 < selected.len() && emphasis.is_on(inner_stars) {
        let inner = &selected[width..selected.len() - width];
        return splice(text, start..end, inner, start..start + inner.len());
    }
    // The markers sit around the selection (or the cursor): `**|word|**`.
    let around = stars_before(text, start).min(stars_after(text, end));
    if emphasis.is_on(around) {
        let mut out = String::with_capacity(text.len());
        out.push_str(&text[..start - width]);
        out.push_str(selected);
        out.push_str(&text[end + width..]);
        return Edited {
            text: out,
            selection: start - width..end - width,
        };
    }
    // Wrap the selection without its surrounding spaces (`** word**` is not bold).
    let core_start = start + (selected.len() - selected.trim_start().len());
    let core_end = (end - (selected.len() - selected.trim_end().len())).max(core_start);
    let core = if core_start == core_end {
        emphasis.placeholder()
    } else {
        &text[core_start..core_end]
    };
    let insert = format!("{marker}{core}{marker}");
    let selection = core_start + width..core_start + width + core.len();
    splice(text, core_start..core_end, &insert, selection)
}

// ---- link ---------------------------------------------------------------------------------

/// Where a new link points until the address is typed (selected so typing replaces it).
pub const LINK_PLACEHOLDER_URL: &str = "https://";
const LINK_PLACEHOLDER_TEXT: &str = "link text";

fn looks_like_address(text: &str) -> bool {
    let lower = text.trim().to_ascii_lowercase();
    !lower.contains(char::is_whitespace)
        && (lower.starts_with("http://")
            || lower.starts_with("https://")
            || lower.starts_with("mailto:"))
}

/// `[text](url)` as (text, url) when `selected` is exactly one inline link.
fn as_link(selected: &str) -> Option<(&str, &str)> {
    let rest = selected.strip_prefix('[')?.strip_suffix(')')?;
    let (label, url) = rest.split_once("](")?;
    (!label.contains(']') && !url.contains(['(', ')'])).then_some((label, url))
}

fn link(text: &str, start: usize, end: usize) -> Edited {
    let selected = &text[start..end];
    if let Some((label, _)) = as_link(selected) {
        return splice(text, start..end, label, start..start + label.len());
    }
    if selected.trim().is_empty() || looks_like_address(selected) {
        let url = if selected.trim().is_empty() {
            LINK_PLACEHOLDER_URL
        } else {
            selected.trim()
        };
        let insert = format!("[{LINK_PLACEHOLDER_TEXT}]({url})");
        return splice(
            text,
            start..end,
            &insert,
            start + 1..start + 1 + LINK_PLACEHOLDER_TEXT.len(),
        );
    }
    let insert = format!("[{selected}]({LINK_PLACEHOLDER_URL})");
    let url_start = start + selected.len() + 3;
    splice(
        text,
        start..end,
        &insert,
        url_start..url_start + LINK_PLACEHOLDER_URL.len(),
    )
}

// ---- line formats -------------------------------------------------------------------------

/// The byte range of the whole lines the selection touches. A selection that ends at the
/// very start of a line (whole lines selected with their newline) leaves that line out.
fn line_block(text: &str, start: usize, end: usize) -> Range<usize> {
    let end = if end > start && text[..end].ends_with('\n') {
        end - 1
    } else {
        end
    };
    let block_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let block_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    block_start..block_end.max(block_start)
}

/// Replace the selected lines by `change(lines)`. A cursor ends at the end of the changed
/// block; a selection selects the whole changed block.
fn edit_lines(
    text: &str,
    start: usize,
    end: usize,
    change: impl FnOnce(&[&str]) -> Vec<String>,
) -> Edited {
    let block = line_block(text, start, end);
    let lines: Vec<&str> = text[block.clone()].split('\n').collect();
    let replaced = change(&lines).join("\n");
    let new_end = block.start + replaced.len();
    let selection = if start == end {
        new_end..new_end
    } else {
        block.start..new_end
    };
    splice(text, block, &replaced, selection)
}

fn heading_level(line: &str) -> (usize, &str) {
    let hashes = line.chars().take_while(|c| *c == '#').count();
    match line[hashes..].strip_prefix(' ') {
        Some(rest) if (1..=6).contains(&hashes) => (hashes, rest.trim_start()),
        _ if hashes > 0 && (1..=6).contains(&hashes) && line.len() == hashes => (hashes, ""),
        _ => (0, line),
    }
}

fn toggle_heading(lines: &[&str], prefix: &str) -> Vec<String> {
    let all_at_level = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .all(|l| heading_level(l).0 == prefix.len())
        && lines.iter().any(|l| !l.trim().is_empty());
    lines
        .iter()
        .map(|line| {
            let (_, content) = heading_level(line);
            if all_at_level {
                content.to_owned()
            } else if line.trim().is_empty() && lines.len() > 1 {
                String::new()
            } else {
                format!("{prefix} {content}")
            }
        })
        .collect()
}

/// The line without a bullet or number marker, and which marker it had.
fn strip_list_marker(line: &str) -> (ListMarker, &str) {
    let indent = line.len() - line.trim_start().len();
    let rest = &line[indent..];
    for bullet in ["- ", "* ", "+ "] {
        if let Some(content) = rest.strip_prefix(bullet) {
            return (ListMarker::Bullet, content);
        }
    }
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits > 0
        && let Some(content) = rest[digits..]
            .strip_prefix(". ")
            .or_else(|| rest[digits..].strip_prefix(") "))
    {
        return (ListMarker::Number, content);
    }
    (ListMarker::None, line)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ListMarker {
    None,
    Bullet,
    Number,
}

fn toggle_list(lines: &[&str], marker: ListMarker) -> Vec<String> {
    let filled: Vec<&&str> = lines.iter().filter(|l| !l.trim().is_empty()).collect();
    let all_marked = !filled.is_empty() && filled.iter().all(|l| strip_list_marker(l).0 == marker);
    let mut number = 0;
    lines
        .iter()
        .map(|line| {
            let (_, content) = strip_list_marker(line);
            if all_marked {
                return content.to_owned();
            }
            if line.trim().is_empty() && !filled.is_empty() {
                return String::new();
            }
            number += 1;
            match marker {
                ListMarker::Number => format!("{number}. {content}"),
                _ => format!("- {content}"),
            }
        })
        .collect()
}

fn toggle_bullets(lines: &[&str]) -> Vec<String> {
    toggle_list(lines, ListMarker::Bullet)
}

fn toggle_numbers(lines: &[&str]) -> Vec<String> {
    toggle_list(lines, ListMarker::Number)
}

fn toggle_quote(lines: &[&str]) -> Vec<String> {
    let filled = lines.iter().filter(|l| !l.trim().is_empty());
    let all_quoted =
        lines.iter().any(|l| !l.trim().is_empty()) && filled.clone().all(|l| l.starts_with('>'));
    lines
        .iter()
        .map(|line| {
            if all_quoted {
                let rest = line.strip_prefix('>').unwrap_or(line);
                rest.strip_prefix(' ').unwrap_or(rest).to_owned()
            } else if line.trim().is_empty() && lines.len() > 1 {
                // Keeps the quote one block across its blank lines.
                ">".to_owned()
            } else {
                format!("> {line}")
            }
        })
        .collect()
}

// ---- table --------------------------------------------------------------------------------

const TABLE_TEMPLATE: &str = "| Column 1 | Column 2 |\n| --- | --- |\n| Cell | Cell |";

/// One row of cells from a selected line: tab-separated (pasted from a spreadsheet), else
/// comma-separated, else `|`-separated, else one cell.
fn cells(line: &str) -> Vec<String> {
    let line = line.trim().trim_matches('|');
    let parts: Vec<&str> = if line.contains('\t') {
        line.split('\t').collect()
    } else if line.contains(',') {
        line.split(',').collect()
    } else if line.contains('|') {
        line.split('|').collect()
    } else {
        vec![line]
    };
    parts
        .into_iter()
        .map(|cell| cell.trim().replace('|', "\\|"))
        .collect()
}

fn table_from_lines(lines: &[&str]) -> String {
    let rows: Vec<Vec<String>> = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| cells(l))
        .collect();
    let columns = rows.iter().map(Vec::len).max().unwrap_or(1).max(1);
    let row_text = |row: &[String]| {
        let mut cells: Vec<&str> = row.iter().map(String::as_str).collect();
        cells.resize(columns, "");
        format!("| {} |", cells.join(" | "))
    };
    let mut out = vec![row_text(&rows[0])];
    out.push(format!("| {} |", vec!["---"; columns].join(" | ")));
    out.extend(rows[1..].iter().map(|row| row_text(row)));
    out.join("\n")
}

/// Build a table from the selected lines (the first is the header), or insert a two-column
/// template below the cursor's line with "Column 1" selected.
fn table(text: &str, start: usize, end: usize) -> Edited {
    let block = line_block(text, start, end);
    let selected_lines: Vec<&str> = text[block.clone()].split('\n').collect();
    let has_selection = start != end && selected_lines.iter().any(|l| !l.trim().is_empty());
    let (at, body) = if has_selection {
        (block.clone(), table_from_lines(&selected_lines))
    } else if text[block.clone()].trim().is_empty() {
        (block.clone(), TABLE_TEMPLATE.to_owned())
    } else {
        (block.end..block.end, TABLE_TEMPLATE.to_owned())
    };
    // A table is a block of its own: a blank line before and after it.
    let before = &text[..at.start];
    let after = &text[at.end..];
    let lead = if before.is_empty() || before.ends_with("\n\n") {
        ""
    } else if before.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    };
    let trail = if after.is_empty() || after.starts_with("\n\n") {
        ""
    } else if after.starts_with('\n') {
        "\n"
    } else {
        "\n\n"
    };
    let insert = format!("{lead}{body}{trail}");
    let body_start = at.start + lead.len();
    let selection = if has_selection {
        body_start..body_start + body.len()
    } else {
        body_start + 2..body_start + 2 + "Column 1".len()
    };
    splice(text, at, &insert, selection)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Selection markers: `[` `]`, or `«` `»` in texts that hold brackets; `|` a cursor.
    fn markers(text: &str) -> (char, char) {
        if text.contains('«') {
            ('«', '»')
        } else {
            ('[', ']')
        }
    }

    /// `text` with its selection marked → (plain text, range).
    fn marked(text: &str) -> (String, Range<usize>) {
        let (open, close) = markers(text);
        let mut plain = String::new();
        let (mut start, mut end) = (0, 0);
        for c in text.chars() {
            if c == '|' {
                start = plain.chars().count();
                end = start;
            } else if c == open && !text.contains('|') {
                start = plain.chars().count();
            } else if c == close && !text.contains('|') {
                end = plain.chars().count();
            } else {
                plain.push(c);
            }
        }
        (plain, start..end)
    }

    /// Apply `format` to a marked text and give the result marked the same way.
    fn run(text: &str, format: Format) -> String {
        let (open, close) = markers(text);
        let (plain, selection) = marked(text);
        let edited = apply(&plain, selection, format);
        let mut out = String::new();
        for (i, c) in edited.text.chars().chain(std::iter::once('\0')).enumerate() {
            if edited.selection.is_empty() && i == edited.selection.start {
                out.push('|');
            } else {
                if i == edited.selection.start {
                    out.push(open);
                }
                if i == edited.selection.end {
                    out.push(close);
                }
            }
            if c != '\0' {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn bold_wraps_toggles_and_inserts_a_placeholder() {
        assert_eq!(run("a [word] b", Format::Bold), "a **[word]** b");
        assert_eq!(run("a **[word]** b", Format::Bold), "a [word] b");
        assert_eq!(run("a [**word**] b", Format::Bold), "a [word] b");
        assert_eq!(run("a |", Format::Bold), "a **[bold text]**");
        // Spaces at the selection's edges stay outside the markers.
        assert_eq!(run("a[ word ]b", Format::Bold), "a **[word]** b");
        // Bold inside bold-italic.
        assert_eq!(run("***[x]***", Format::Bold), "*[x]*");
    }

    #[test]
    fn italic_wraps_and_toggles_without_touching_bold() {
        assert_eq!(run("[word]", Format::Italic), "*[word]*");
        assert_eq!(run("*[word]*", Format::Italic), "[word]");
        assert_eq!(run("**[word]**", Format::Italic), "***[word]***");
        assert_eq!(run("***[word]***", Format::Italic), "**[word]**");
        assert_eq!(run("é |", Format::Italic), "é *[italic text]*");
    }

    #[test]
    fn link_selects_what_to_type_next() {
        assert_eq!(
            run("see «the call sheet»", Format::Link),
            "see [the call sheet](«https://»)"
        );
        let empty = apply("", 0..0, Format::Link);
        assert_eq!(
            (empty.text.as_str(), empty.selection),
            ("[link text](https://)", 1..10)
        );
        assert_eq!(
            run("«https://example.com»", Format::Link),
            "[«link text»](https://example.com)"
        );
        assert_eq!(run("«[x](https://e.example)»", Format::Link), "«x»");
    }

    #[test]
    fn headings_replace_and_toggle_the_level_of_each_line() {
        assert_eq!(run("Ti|tle", Format::Heading(2)), "## Title|");
        assert_eq!(run("### Ti|tle", Format::Heading(1)), "# Title|");
        assert_eq!(run("## Ti|tle", Format::Heading(2)), "Title|");
        assert_eq!(run("a\n|", Format::Heading(3)), "a\n### |");
        assert_eq!(run("[a\nb]\nc", Format::Heading(1)), "[# a\n# b]\nc");
    }

    #[test]
    fn lists_prefix_every_selected_line_and_switch_kinds() {
        assert_eq!(run("[one\ntwo]", Format::BulletList), "[- one\n- two]");
        assert_eq!(run("[- one\n- two]", Format::BulletList), "[one\ntwo]");
        assert_eq!(
            run("[- one\n\n- two]", Format::NumberedList),
            "[1. one\n\n2. two]"
        );
        assert_eq!(run("[1. one\n2. two]", Format::NumberedList), "[one\ntwo]");
        assert_eq!(
            run("[1. one\n2. two]", Format::BulletList),
            "[- one\n- two]"
        );
        // Whole lines selected with their newline leave the next line alone.
        assert_eq!(run("[one\n]two", Format::BulletList), "[- one]\ntwo");
        assert_eq!(run("|", Format::NumberedList), "1. |");
    }

    #[test]
    fn quote_prefixes_and_toggles() {
        assert_eq!(run("[a\n\nb]", Format::Quote), "[> a\n>\n> b]");
        assert_eq!(run("[> a\n>\n> b]", Format::Quote), "[a\n\nb]");
        assert_eq!(run("sa|id", Format::Quote), "> said|");
    }

    #[test]
    fn table_inserts_a_template_as_its_own_block() {
        assert_eq!(
            run("Intro|", Format::Table),
            "Intro\n\n| [Column 1] | Column 2 |\n| --- | --- |\n| Cell | Cell |"
        );
        assert_eq!(
            run("Intro\n|\nMore", Format::Table),
            "Intro\n\n| [Column 1] | Column 2 |\n| --- | --- |\n| Cell | Cell |\n\nMore"
        );
        let html = crate::markup::to_stored_html(&apply("Intro", 5..5, Format::Table).text);
        assert!(html.contains("<th>Column 1</th>"), "{html}");
    }

    #[test]
    fn table_builds_rows_from_selected_lines() {
        assert_eq!(
            run("[Role\tName\nDirector\tAna\nCamera]", Format::Table),
            "[| Role | Name |\n| --- | --- |\n| Director | Ana |\n| Camera |  |]"
        );
        assert_eq!(
            run("[a, b\n1, 2]", Format::Table),
            "[| a | b |\n| --- | --- |\n| 1 | 2 |]"
        );
    }

    #[test]
    fn selections_in_either_order_and_past_the_end_are_accepted() {
        // A selection made leftwards: egui gives its ends in that order.
        let leftwards = Range { start: 4, end: 0 };
        let edited = apply("word", leftwards, Format::Bold);
        assert_eq!(edited.text, "**word**");
        assert_eq!(edited.selection, 2..6);
        let edited = apply("word", 10..10, Format::Italic);
        assert_eq!(edited.text, "word*italic text*");
    }
}
