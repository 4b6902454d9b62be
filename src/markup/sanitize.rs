//! The allowed HTML of a project document, as the service keeps it: one ammonia
//! configuration, the same rules as the sandbox's (which has its own copy, so a misreading
//! of the contract cannot hide on both sides).

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

/// Every element a stored document may hold (interfaces: h1-h3, p, ul, ol, li, table and
/// its sections, rows and cells, blockquote, strong, em, a). `br` is not kept.
pub const ALLOWED_TAGS: [&str; 17] = [
    "h1",
    "h2",
    "h3",
    "p",
    "ul",
    "ol",
    "li",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "blockquote",
    "strong",
    "em",
    "a",
];

/// Link addresses that survive (anything else loses its `href`; relative ones too).
pub const ALLOWED_URL_SCHEMES: [&str; 3] = ["http", "https", "mailto"];

/// Removed together with everything inside them; any other tag is unwrapped (its text is
/// kept).
pub const REMOVED_WITH_CONTENT: [&str; 3] = ["script", "style", "iframe"];

static CLEANER: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
    let mut builder = ammonia::Builder::empty();
    builder
        .tags(ALLOWED_TAGS.into_iter().collect())
        .tag_attributes(HashMap::from([("a", HashSet::from(["href"]))]))
        .generic_attributes(HashSet::new())
        .url_schemes(ALLOWED_URL_SCHEMES.into_iter().collect())
        .url_relative(ammonia::UrlRelative::Deny)
        .link_rel(None)
        .clean_content_tags(REMOVED_WITH_CONTENT.into_iter().collect())
        .strip_comments(true);
    builder
});

/// `html` reduced to the allowed elements.
pub fn sanitize(html: &str) -> String {
    CLEANER.clean(html).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_exactly_the_allowed_elements() {
        for tag in ALLOWED_TAGS {
            let html = match tag {
                "li" => "<ul><li>x</li></ul>".to_owned(),
                "thead" | "tbody" | "tr" | "th" | "td" | "table" => {
                    "<table><thead><tr><th>h</th></tr></thead><tbody><tr><td>x</td></tr></tbody></table>"
                        .to_owned()
                }
                other => format!("<{other}>x</{other}>"),
            };
            assert!(
                sanitize(&html).contains(&format!("<{tag}>")),
                "{tag} kept: {}",
                sanitize(&html)
            );
        }
    }

    #[test]
    fn removes_scripts_styles_and_frames_with_their_content() {
        let html = "<p>a<script>alert(1)</script><style>p{}</style><iframe>f</iframe>b</p>";
        assert_eq!(sanitize(html), "<p>ab</p>");
    }

    #[test]
    fn unwraps_other_tags_and_drops_attributes() {
        assert_eq!(
            sanitize(r#"<div class="x"><p style="color:red">a<br>b <code>c</code></p></div>"#),
            "<p>ab c</p>"
        );
        assert_eq!(
            sanitize("<h4>Four</h4><pre><code>let x;</code></pre>"),
            "Fourlet x;"
        );
    }

    #[test]
    fn links_keep_only_web_and_mail_addresses_without_rel() {
        assert_eq!(
            sanitize(r#"<a href="https://example.com" title="t" target="_blank">x</a>"#),
            r#"<a href="https://example.com">x</a>"#
        );
        assert_eq!(
            sanitize(r#"<a href="mailto:a@example.com">m</a>"#),
            r#"<a href="mailto:a@example.com">m</a>"#
        );
        for bad in [
            "javascript:alert(1)",
            "/relative",
            "ftp://example.com/f",
            "data:text/html,x",
        ] {
            assert_eq!(
                sanitize(&format!(r#"<a href="{bad}">x</a>"#)),
                "<a>x</a>",
                "{bad}"
            );
        }
    }
}
