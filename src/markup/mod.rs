//! Markdown ↔ the HTML a project document is stored as. Pure functions, no egui.
//!
//! - [`markdown_to_html`]: pulldown-cmark (tables, strikethrough and task lists on, as the
//!   editor's preview renders them), unsanitised.
//! - [`to_stored_html`]: that HTML reduced to the allowed set ([`sanitize`]) — what the
//!   studio sends, and exactly what the service keeps.
//! - [`html_to_markdown`]: a stored document back into the editor (html-to-markdown-rs).
//! - [`unsupported_content`]: what the service will not keep, named for a person, so the
//!   editor can say so before saving.
//!
//! A document written with the allowed elements survives Markdown → HTML → Markdown → HTML
//! unchanged (see the tests).

pub mod blocks;
pub mod edit;
mod sanitize;
mod unsupported;

pub use sanitize::{ALLOWED_TAGS, ALLOWED_URL_SCHEMES, REMOVED_WITH_CONTENT, sanitize};
pub use unsupported::unsupported_content;

use pulldown_cmark::{Options, Parser};

/// Why a stored document could not be turned back into Markdown.
#[derive(Debug, thiserror::Error)]
#[error("the document's HTML could not be converted to Markdown: {0}")]
pub struct MarkupError(String);

/// The Markdown dialect of the editor: CommonMark with tables, strikethrough and task
/// lists (strikethrough and task lists are reported as not kept).
pub fn parser_options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Markdown as HTML, before sanitising.
pub fn markdown_to_html(markdown: &str) -> String {
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, Parser::new_ext(markdown, parser_options()));
    html
}

/// The HTML the studio sends for `markdown`: converted, then sanitised to the allowed set.
pub fn to_stored_html(markdown: &str) -> String {
    sanitize(&markdown_to_html(markdown))
}

/// A stored document's HTML as Markdown for the editor. It is sanitised first, so
/// whatever the service sent, only allowed elements reach the editor.
pub fn html_to_markdown(html: &str) -> Result<String, MarkupError> {
    let clean = sanitize(html);
    let options = html_to_markdown_rs::ConversionOptions {
        heading_style: html_to_markdown_rs::HeadingStyle::Atx,
        bullets: "-".to_owned(),
        strong_em_symbol: '*',
        // Literal characters that Markdown would read as markup stay literal.
        escape_asterisks: true,
        escape_underscores: true,
        escape_misc: true,
        include_blockquote_citations: false,
        extract_metadata: false,
        ..Default::default()
    };
    let result =
        html_to_markdown_rs::convert(&clean, options).map_err(|e| MarkupError(e.to_string()))?;
    let mut markdown = result.content.unwrap_or_default().trim().to_owned();
    if !markdown.is_empty() {
        markdown.push('\n');
    }
    Ok(markdown)
}

/// `markdown` as the service will keep it, back as Markdown: what a saved document shows
/// (the editor's preview). Unsupported constructs are gone (code blocks become plain text,
/// images and rules vanish), exactly as after a save and a reopen.
pub fn as_stored_markdown(markdown: &str) -> String {
    html_to_markdown(&to_stored_html(markdown)).unwrap_or_else(|error| {
        tracing::warn!("preview conversion failed: {error}");
        String::new()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A document using every allowed element.
    const EVERYTHING: &str = "\
# Harbour shoot

## Call sheet

Paragraph with **bold**, *italic*, a [link](https://example.com/call) and a \
[mail link](mailto:crew@example.com).

### Crew

- Director
- Camera, with *notes*

1. Arrive
2. Set up
3. Shoot

> Bring warm clothes. **Really.**

| Role | Name | Call |
| --- | --- | --- |
| Director | Ana | 06:00 |
| Camera | **Bo** | 06:30 |
";

    #[test]
    fn a_document_of_every_allowed_element_round_trips() {
        let stored = to_stored_html(EVERYTHING);
        for tag in ALLOWED_TAGS {
            assert!(stored.contains(&format!("<{tag}")), "{tag} in {stored}");
        }
        let back = html_to_markdown(&stored).expect("to markdown");
        assert_eq!(
            to_stored_html(&back),
            stored,
            "markdown from the service:\n{back}"
        );
        // And again: the editor's text is stable once it came from the service.
        assert_eq!(html_to_markdown(&to_stored_html(&back)).unwrap(), back);
    }

    #[test]
    fn literal_markup_characters_stay_literal() {
        let markdown = "Use \\*stars\\*, \\_underscores\\_, \\[brackets\\] and 2 \\* 3.\n";
        let stored = to_stored_html(markdown);
        assert_eq!(
            stored,
            "<p>Use *stars*, _underscores_, [brackets] and 2 * 3.</p>\n"
        );
        let back = html_to_markdown(&stored).unwrap();
        assert_eq!(to_stored_html(&back), stored, "{back}");
    }

    #[test]
    fn the_stored_form_drops_what_the_service_does_not_keep() {
        let stored =
            as_stored_markdown("# Title\n\n```\ncargo run\n```\n\n![a](https://e.example/a.png)\n");
        assert!(stored.starts_with("# Title"), "{stored}");
        assert!(
            stored.contains("cargo run") && !stored.contains("```"),
            "{stored}"
        );
        assert!(!stored.contains("e.example"), "{stored}");
        assert_eq!(
            as_stored_markdown(EVERYTHING),
            html_to_markdown(&to_stored_html(EVERYTHING)).unwrap()
        );
    }

    #[test]
    fn html_from_elsewhere_is_sanitised_before_it_reaches_the_editor() {
        let markdown =
            html_to_markdown("<p>Hi<script>alert(1)</script></p><pre>code</pre>").unwrap();
        assert!(!markdown.contains("alert"), "{markdown}");
        assert!(!markdown.contains("```"), "{markdown}");
        assert!(markdown.contains("Hi"), "{markdown}");
        assert_eq!(html_to_markdown("").unwrap(), "");
    }
}
