//! What a document's Markdown holds that the service will not keep, named for a person
//! ("code blocks", "images"…), found by walking pulldown-cmark's events with the same
//! options the conversion uses. The text of such content mostly survives (unwrapped); the
//! formatting, pictures and addresses do not.

use super::sanitize::{ALLOWED_TAGS, ALLOWED_URL_SCHEMES, REMOVED_WITH_CONTENT};
use pulldown_cmark::{Event, HeadingLevel, LinkType, Parser, Tag};

/// Each kind of content the service drops, in the order the notice lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Dropped {
    SmallHeadings,
    CodeBlocks,
    InlineCode,
    Images,
    HorizontalRules,
    Strikethrough,
    TaskCheckboxes,
    LineBreaks,
    ListStart,
    TableAlignment,
    LinkAddresses,
    RemovedHtml,
    OtherHtml,
}

impl Dropped {
    fn name(self) -> &'static str {
        match self {
            Dropped::SmallHeadings => "h4–h6 headings",
            Dropped::CodeBlocks => "code blocks",
            Dropped::InlineCode => "inline code",
            Dropped::Images => "images",
            Dropped::HorizontalRules => "horizontal rules",
            Dropped::Strikethrough => "strikethrough",
            Dropped::TaskCheckboxes => "task list checkboxes",
            Dropped::LineBreaks => "line breaks",
            Dropped::ListStart => "list numbers that don't start at 1",
            Dropped::TableAlignment => "table column alignment",
            Dropped::LinkAddresses => "link addresses other than http, https or mailto",
            Dropped::RemovedHtml => "scripts, styles and frames (with their content)",
            Dropped::OtherHtml => "other HTML tags",
        }
    }
}

/// The kinds of content in `markdown` that the service will not keep, each named once,
/// in a fixed order. Empty when everything is kept.
pub fn unsupported_content(markdown: &str) -> Vec<String> {
    let mut found = std::collections::BTreeSet::new();
    for event in Parser::new_ext(markdown, super::parser_options()) {
        match event {
            Event::Start(Tag::Heading { level, .. })
                if !matches!(
                    level,
                    HeadingLevel::H1 | HeadingLevel::H2 | HeadingLevel::H3
                ) =>
            {
                found.insert(Dropped::SmallHeadings);
            }
            Event::Start(Tag::CodeBlock(_)) => {
                found.insert(Dropped::CodeBlocks);
            }
            Event::Code(_) => {
                found.insert(Dropped::InlineCode);
            }
            Event::Start(Tag::Image { .. }) => {
                found.insert(Dropped::Images);
            }
            Event::Rule => {
                found.insert(Dropped::HorizontalRules);
            }
            Event::Start(Tag::Strikethrough) => {
                found.insert(Dropped::Strikethrough);
            }
            Event::TaskListMarker(_) => {
                found.insert(Dropped::TaskCheckboxes);
            }
            Event::HardBreak => {
                found.insert(Dropped::LineBreaks);
            }
            Event::Start(Tag::List(Some(start))) if start != 1 => {
                found.insert(Dropped::ListStart);
            }
            Event::Start(Tag::Table(alignments))
                if alignments
                    .iter()
                    .any(|a| *a != pulldown_cmark::Alignment::None) =>
            {
                found.insert(Dropped::TableAlignment);
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                ..
            }) if link_type != LinkType::Email && !is_kept_address(&dest_url) => {
                found.insert(Dropped::LinkAddresses);
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                for tag in opening_tags(&html) {
                    if REMOVED_WITH_CONTENT.contains(&tag.as_str()) {
                        found.insert(Dropped::RemovedHtml);
                    } else if tag == "br" {
                        found.insert(Dropped::LineBreaks);
                    } else if !ALLOWED_TAGS.contains(&tag.as_str()) {
                        found.insert(Dropped::OtherHtml);
                    }
                }
            }
            _ => {}
        }
    }
    found.into_iter().map(|d| d.name().to_owned()).collect()
}

/// Whether a link keeps its address: an absolute http, https or mailto URL.
fn is_kept_address(url: &str) -> bool {
    let url = url.trim();
    let Some((scheme, rest)) = url.split_once(':') else {
        return false;
    };
    let scheme = scheme.to_ascii_lowercase();
    ALLOWED_URL_SCHEMES.contains(&scheme.as_str())
        && !rest.is_empty()
        && scheme.chars().all(|c| c.is_ascii_alphabetic())
}

/// Lower-case names of the opening tags in a raw HTML fragment (comments and closing tags
/// skipped).
fn opening_tags(html: &str) -> Vec<String> {
    let mut tags = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        rest = &rest[at + 1..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if !name.is_empty() && name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            tags.push(name.to_ascii_lowercase());
        }
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(markdown: &str) -> Vec<String> {
        unsupported_content(markdown)
    }

    #[test]
    fn allowed_content_reports_nothing() {
        let markdown = "# A\n\n## B\n\n### C\n\nText **b** *i* [l](https://x.example) \
                        <mail@example.com> <https://example.com>\n\n- a\n- b\n\n1. x\n\n> q\n\n\
                        | a | b |\n| --- | --- |\n| 1 | 2 |\n\n<strong>raw but allowed</strong>\n";
        assert_eq!(names(markdown), Vec::<String>::new());
    }

    #[test]
    fn each_unsupported_construct_is_named() {
        let cases: [(&str, &str); 16] = [
            ("#### Four\n", "h4–h6 headings"),
            ("###### Six\n", "h4–h6 headings"),
            ("```\nlet x = 1;\n```\n", "code blocks"),
            ("    indented code\n", "code blocks"),
            ("Use `cargo`.\n", "inline code"),
            ("![a still](https://example.com/a.png)\n", "images"),
            ("a\n\n---\n\nb\n", "horizontal rules"),
            ("~~gone~~\n", "strikethrough"),
            ("- [x] done\n", "task list checkboxes"),
            ("one  \ntwo\n", "line breaks"),
            ("one<br>two\n", "line breaks"),
            ("3. three\n4. four\n", "list numbers that don't start at 1"),
            ("| a |\n| :-: |\n| 1 |\n", "table column alignment"),
            (
                "[x](javascript:alert(1)) [y](/relative)\n",
                "link addresses other than http, https or mailto",
            ),
            (
                "<script>alert(1)</script>\n",
                "scripts, styles and frames (with their content)",
            ),
            ("<div>boxed</div>\n", "other HTML tags"),
        ];
        for (markdown, expected) in cases {
            assert_eq!(names(markdown), vec![expected.to_owned()], "{markdown:?}");
        }
    }

    #[test]
    fn several_kinds_are_named_once_each_in_a_fixed_order() {
        let markdown = "Some `code` and `more`.\n\n```\nblock\n```\n\n#### Small\n";
        assert_eq!(
            names(markdown),
            vec!["h4–h6 headings", "code blocks", "inline code"]
        );
    }

    #[test]
    fn what_is_named_is_what_sanitising_changes() {
        // Every reported case really loses something between the HTML and what is kept.
        for markdown in [
            "```\nx\n```\n",
            "![a](https://e.example/a.png)\n",
            "~~s~~\n",
            "a  \nb\n",
        ] {
            let html = super::super::markdown_to_html(markdown);
            assert_ne!(super::super::sanitize(&html), html, "{markdown:?}");
            assert!(!names(markdown).is_empty());
        }
        let kept = "# T\n\n- **a**\n";
        let html = super::super::markdown_to_html(kept);
        assert_eq!(super::super::sanitize(&html), html);
    }
}
