//! The one HTML sanitiser of project documents (issue 12, "Allowed HTML"): every write
//! (create, update, editable-link save) stores `sanitize(content)`.
//!
//! Kept: h1 h2 h3 p ul ol li table thead tbody tr th td blockquote strong em a, with no
//! attribute except `href` on `a`, and only for http, https and mailto URLs (relative
//! URLs and every other scheme lose the `href`; the link text stays). `script`, `style`
//! and `iframe` are removed with their content; any other tag is unwrapped (its text is
//! kept); comments are dropped. ammonia's automatic `rel="noopener noreferrer"` is turned
//! off (`link_rel(None)`), so the stored HTML holds only the allowed set and the client's
//! sanitiser, built the same way, gives byte-identical output.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use ammonia::{Builder, UrlRelative};

/// Elements a document may contain.
pub(crate) const ALLOWED_TAGS: [&str; 17] = [
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

/// Elements removed together with everything inside them.
pub(crate) const REMOVED_WITH_CONTENT: [&str; 3] = ["script", "style", "iframe"];

/// URL schemes an `a href` may use.
pub(crate) const LINK_SCHEMES: [&str; 3] = ["http", "https", "mailto"];

static CLEANER: LazyLock<Builder<'static>> = LazyLock::new(|| {
    let mut builder = Builder::empty();
    builder
        .tags(ALLOWED_TAGS.iter().copied().collect())
        .clean_content_tags(REMOVED_WITH_CONTENT.iter().copied().collect())
        .generic_attributes(HashSet::new())
        .tag_attributes(HashMap::from([("a", HashSet::from(["href"]))]))
        .url_schemes(LINK_SCHEMES.iter().copied().collect())
        .url_relative(UrlRelative::Deny)
        .link_rel(None)
        .strip_comments(true);
    builder
});

/// The stored form of a document's HTML.
pub(crate) fn sanitize(html: &str) -> String {
    CLEANER.clean(html).to_string()
}

#[cfg(test)]
mod tests {
    use super::sanitize;

    #[test]
    fn every_allowed_element_is_kept_as_is() {
        let html = "<h1>One</h1><h2>Two</h2><h3>Three</h3><p>Para <strong>bold</strong> \
            <em>it</em> <a href=\"https://example.com/x\">s</a> <a href=\"http://example.com\">h</a> \
            <a href=\"mailto:a@b.test\">m</a></p><ul><li>u</li></ul><ol><li>o</li></ol>\
            <blockquote>q</blockquote><table><thead><tr><th>H</th></tr></thead>\
            <tbody><tr><td>D</td></tr></tbody></table>";
        assert_eq!(sanitize(html), html);
    }

    #[test]
    fn script_style_and_iframe_go_with_their_content() {
        assert_eq!(
            sanitize(
                "<p>a</p><script>alert(1)</script><style>p{color:red}</style><iframe src=\"https://x.test\">inner</iframe><p>b</p>"
            ),
            "<p>a</p><p>b</p>"
        );
    }

    #[test]
    fn other_tags_are_unwrapped_and_their_text_kept() {
        assert_eq!(
            sanitize(
                "<div><span>one</span> <h4>two</h4> <code>three</code><br><img src=\"https://x.test/a.png\"><b>four</b></div>"
            ),
            "one two threefour"
        );
    }

    #[test]
    fn links_keep_only_http_https_and_mailto_hrefs_and_no_other_attribute() {
        assert_eq!(
            sanitize(
                "<a href=\"javascript:alert(1)\" onclick=\"x()\" title=\"t\" target=\"_blank\">j</a>"
            ),
            "<a>j</a>"
        );
        assert_eq!(sanitize("<a href=\"/relative\">r</a>"), "<a>r</a>");
        assert_eq!(sanitize("<a href=\"ftp://x.test\">f</a>"), "<a>f</a>");
        assert_eq!(
            sanitize("<p class=\"c\" style=\"color:red\" id=\"i\">p</p>"),
            "<p>p</p>"
        );
    }

    #[test]
    fn comments_are_dropped_and_text_is_escaped() {
        assert_eq!(
            sanitize("<!-- c --><p>1 &lt; 2 & 3</p>"),
            "<p>1 &lt; 2 &amp; 3</p>"
        );
    }

    #[test]
    fn sanitising_twice_changes_nothing() {
        let once = sanitize("<div><p>x<br>y</p><table><tr><td>c</td></tr></table></div>");
        assert_eq!(sanitize(&once), once);
    }
}
