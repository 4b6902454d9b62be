//! The public page of a shared document, `GET /share/docs/{token}` (no API key: the
//! unguessable token is the credential), and its link edit, `POST /share/docs/{token}`
//! (form field `content`), allowed only while `is_editable_by_link` is on.

use std::collections::HashMap;

use axum::Form;
use axum::extract::rejection::FormRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::sanitize::sanitize;
use super::store::{DocRow, LinkEdit};
use crate::sandbox::state::AppState;

/// The page runs no script, loads nothing and may only post back to itself.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; \
    form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const STYLE: &str = "
:root { color-scheme: light dark; }
body { margin: 0; font: 17px/1.6 system-ui, -apple-system, 'Segoe UI', sans-serif;
  background: #f6f5f2; color: #1d1d1f; }
main { max-width: 46rem; margin: 0 auto; padding: 2.5rem 1.5rem 4rem; }
.kicker { margin: 0; font-size: .8rem; letter-spacing: .08em; text-transform: uppercase;
  color: #5f5f66; }
.doc-title { margin: .2rem 0 .3rem; font-size: 2.1rem; line-height: 1.2; }
.meta { margin: 0 0 2rem; color: #5f5f66; font-size: .9rem; }
.notice { padding: .6rem .9rem; border-radius: 6px; background: #e3f1e6; color: #184d27; }
article { background: #fff; padding: 1.5rem 2rem; border-radius: 10px;
  box-shadow: 0 1px 3px rgba(0,0,0,.08); overflow-wrap: anywhere; }
article table { border-collapse: collapse; margin: 1rem 0; }
article th, article td { border: 1px solid #c9c9cf; padding: .35rem .7rem; text-align: left; }
article th { background: #efeff2; }
article blockquote { margin: 1rem 0; padding: .2rem 1rem; border-left: 4px solid #c9c9cf;
  color: #45454b; }
article a { color: #0a58ca; }
.edit { margin-top: 2.5rem; }
.edit textarea { box-sizing: border-box; width: 100%; min-height: 18rem; padding: .7rem;
  font: 14px/1.5 ui-monospace, 'SFMono-Regular', Menlo, monospace; border-radius: 6px;
  border: 1px solid #b5b5bc; }
.edit button { margin-top: .8rem; padding: .5rem 1.4rem; font: inherit; border: 0;
  border-radius: 6px; background: #0a58ca; color: #fff; cursor: pointer; }
.edit button:focus-visible, .edit textarea:focus-visible { outline: 3px solid #f0a500; }
@media (prefers-color-scheme: dark) {
  body { background: #161618; color: #ececef; }
  .kicker, .meta { color: #a4a4ad; }
  article { background: #222226; box-shadow: none; }
  article th { background: #2c2c31; }
  article th, article td { border-color: #44444b; }
  article blockquote { color: #c4c4cc; border-color: #44444b; }
  article a { color: #8ab4ff; }
  .notice { background: #1f3a27; color: #cdeed6; }
  .edit textarea { background: #1b1b1e; color: #ececef; border-color: #44444b; }
}
";

/// Text or attribute value made safe to place in HTML.
pub(crate) fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    out
}

fn page_shell(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"robots\" content=\"noindex\">\n<title>{title}</title>\n\
         <style>{STYLE}</style>\n</head>\n<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n",
        title = escape_html(title),
    )
}

fn html_response(status: StatusCode, html: String) -> Response {
    let mut response = (status, html).into_response();
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        // The token is the credential: never leak it to linked sites.
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
        (header::HeaderName::from_static("x-robots-tag"), "noindex"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// A short page saying what went wrong, in words.
fn message_page(status: StatusCode, heading: &str, text: &str) -> Response {
    let body = format!(
        "<h1 class=\"doc-title\">{}</h1>\n<p>{}</p>",
        escape_html(heading),
        escape_html(text)
    );
    html_response(status, page_shell(heading, &body))
}

fn not_available() -> Response {
    message_page(
        StatusCode::NOT_FOUND,
        "Document not available",
        "This link does not lead to a shared document. It may have been unshared or deleted.",
    )
}

fn internal_error(error: rusqlite::Error) -> Response {
    tracing::error!(%error, "sandbox could not serve a shared document");
    message_page(
        StatusCode::INTERNAL_SERVER_ERROR,
        "Something went wrong",
        "The document could not be loaded. Please try again.",
    )
}

/// "25 Nov 2026, 10:30 UTC" from a stored ISO timestamp (as it is, if it does not parse).
fn readable_time(iso: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(iso)
        .map(|time| time.format("%-d %b %Y, %H:%M UTC").to_string())
        .unwrap_or_else(|_| iso.to_owned())
}

/// The read-only view of a document, with the edit form when the link allows editing.
fn document_page(doc: &DocRow, token: &str, saved: bool) -> String {
    let mut body = format!(
        "<header>\n<p class=\"kicker\">Shared document</p>\n\
         <h1 class=\"doc-title\">{title}</h1>\n\
         <p class=\"meta\">Last updated <time datetime=\"{updated}\">{shown}</time></p>\n\
         </header>\n",
        title = escape_html(&doc.title),
        updated = escape_html(&doc.updated_at),
        shown = escape_html(&readable_time(&doc.updated_at)),
    );
    if saved {
        body.push_str("<p class=\"notice\" role=\"status\">Saved.</p>\n");
    }
    // The stored content is sanitised on every write, so it is placed as it is.
    body.push_str(&format!("<article>\n{}\n</article>\n", doc.content));
    if doc.is_editable_by_link {
        body.push_str(&format!(
            "<section class=\"edit\" aria-labelledby=\"edit-heading\">\n\
             <h2 id=\"edit-heading\">Edit this document</h2>\n\
             <p>Anyone with this link can edit. Kept when saving: headings 1-3, paragraphs, \
             lists, tables, quotes, bold, italic and http, https or mailto links; other markup \
             is removed.</p>\n\
             <form method=\"post\" action=\"/share/docs/{token}\">\n\
             <label for=\"content\">Content (HTML)</label>\n\
             <textarea id=\"content\" name=\"content\" rows=\"16\">{content}</textarea>\n\
             <button type=\"submit\">Save</button>\n</form>\n</section>\n",
            token = escape_html(token),
            content = escape_html(&doc.content),
        ));
    }
    page_shell(&doc.title, &body)
}

/// GET /share/docs/{token}
pub(crate) async fn show(
    State(state): State<AppState>,
    Path(token): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    // Set by the redirect after a link edit.
    let saved = query.is_some_and(|q| q.split('&').any(|pair| pair == "saved=1"));
    match state.store.shared_doc(&token) {
        Ok(Some(doc)) => html_response(StatusCode::OK, document_page(&doc, &token, saved)),
        Ok(None) => not_available(),
        Err(error) => internal_error(error),
    }
}

fn read_only() -> Response {
    message_page(
        StatusCode::FORBIDDEN,
        "This document is read-only",
        "Its owner shared it for reading only, so changes cannot be saved from this link.",
    )
}

/// POST /share/docs/{token} (form `content`): sanitises, saves, 303 back to the page.
pub(crate) async fn save(
    State(state): State<AppState>,
    Path(token): Path<String>,
    form: Result<Form<HashMap<String, String>>, FormRejection>,
) -> Response {
    let content = form
        .ok()
        .and_then(|Form(mut fields)| fields.remove("content"));
    let Some(content) = content else {
        // A link that allows no edit says so before the form is judged.
        return match state.store.shared_doc(&token) {
            Ok(Some(doc)) if doc.is_editable_by_link => message_page(
                StatusCode::BAD_REQUEST,
                "Nothing to save",
                "The form did not include the document's content.",
            ),
            Ok(Some(_)) => read_only(),
            Ok(None) => not_available(),
            Err(error) => internal_error(error),
        };
    };
    match state
        .store
        .edit_by_link(&token, &sanitize(&content), state.clock.now_ms())
    {
        Ok(LinkEdit::Saved) => redirect_to_page(&token),
        Ok(LinkEdit::ReadOnly) => read_only(),
        Ok(LinkEdit::NotShared) => not_available(),
        Err(error) => internal_error(error),
    }
}

/// 303 to the page, which then says "Saved.".
fn redirect_to_page(token: &str) -> Response {
    match HeaderValue::from_str(&format!("/share/docs/{token}?saved=1")) {
        Ok(location) => {
            let mut response = StatusCode::SEE_OTHER.into_response();
            response.headers_mut().insert(header::LOCATION, location);
            response
        }
        // A token that found a document is always a valid header value; be safe anyway.
        Err(_) => not_available(),
    }
}

#[cfg(test)]
mod tests {
    use super::{escape_html, readable_time};

    #[test]
    fn the_update_time_reads_like_a_date() {
        assert_eq!(
            readable_time("2026-11-25T10:30:00.000Z"),
            "25 Nov 2026, 10:30 UTC"
        );
        assert_eq!(readable_time("not a time"), "not a time");
    }

    #[test]
    fn markup_in_titles_and_textareas_cannot_break_out() {
        assert_eq!(
            escape_html("</textarea><script>\"x\" & 'y'"),
            "&lt;/textarea&gt;&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;"
        );
    }
}
