//! The sandbox's project documents (document 2, "Project documents"; issue 12) over real
//! HTTP: create, list, get, update, share (and its public page with link editing), soft
//! delete, permissions, the sanitiser and the 120/min limit. Plain JSON values only (not
//! the client's api types), so a shared misreading cannot hide.
//!
//! One sandbox serves the whole binary. Per-user rate-limit windows are shared between the
//! tests, so requests are spread over the directory users and no test moves the clock:
//! the default user owns most documents, ana is an `edit` member, ben a `view` member,
//! chloe a stranger to them (and owns the paging test), dev is only used by the limit test.

use std::sync::OnceLock;

use crate::service_support;
use service_support::{LocalService, local_service};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const ANA: &str = "ana@studio.test";
const BEN: &str = "ben@studio.test";
const CHLOE: &str = "chloe@studio.test";
const DEV: &str = "dev@studio.test";
const META_FIELDS: [&str; 8] = [
    "id",
    "title",
    "project_id",
    "is_shared",
    "is_editable_by_link",
    "share_url",
    "created_at",
    "updated_at",
];

struct Shared {
    service: LocalService,
    /// No redirects followed: the link edit's 303 is asserted as such.
    page_http: reqwest::Client,
    ana: String,
    ben: String,
    chloe: String,
    dev: String,
}

fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| {
        let mut service = local_service(40.0);
        // Tests run on separate runtimes: no pooled connection may outlive its runtime.
        service.http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .expect("client");
        let page_http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        let key = |email| {
            service
                .sandbox
                .create_api_key_for_user(email, false)
                .expect("directory user's key")
        };
        let (ana, ben, chloe, dev) = (key(ANA), key(BEN), key(CHLOE), key(DEV));
        Shared {
            service,
            page_http,
            ana,
            ben,
            chloe,
            dev,
        }
    })
}

fn service() -> &'static LocalService {
    &shared().service
}

/// A caller of the shared sandbox.
#[derive(Clone, Copy)]
struct User {
    key: &'static str,
}

fn owner() -> User {
    User {
        key: &shared().service.key,
    }
}

fn ana() -> User {
    User { key: &shared().ana }
}

fn ben() -> User {
    User { key: &shared().ben }
}

fn chloe() -> User {
    User {
        key: &shared().chloe,
    }
}

fn dev() -> User {
    User { key: &shared().dev }
}

impl User {
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        service().call_as(self.key, method, path, body).await
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.call(Method::GET, path, None).await
    }

    async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.call(Method::POST, path, Some(body)).await
    }

    async fn put(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.call(Method::PUT, path, Some(body)).await
    }

    async fn patch(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.call(Method::PATCH, path, Some(body)).await
    }

    async fn delete(&self, path: &str) -> (StatusCode, Value) {
        self.call(Method::DELETE, path, None).await
    }

    /// Creates a document and returns its metadata (asserting the 201).
    async fn create(&self, body: Value) -> Value {
        let (status, answer) = self.post("/v1/docs", body).await;
        assert_eq!(status, StatusCode::CREATED, "{answer}");
        assert_eq!(answer["success"], json!(true), "{answer}");
        answer["doc"].clone()
    }

    async fn project(&self, name: &str) -> String {
        let (status, body) = self.post("/v1/projects", json!({"name": name})).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        str_of(&body["project"]["id"])
    }

    async fn default_project(&self) -> String {
        let (status, body) = self.get("/v1/projects").await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let default = body["projects"]
            .as_array()
            .expect("projects")
            .iter()
            .find(|p| p["is_default"] == json!(true))
            .expect("a default project");
        str_of(&default["id"])
    }

    /// The document with content (asserting the 200).
    async fn doc(&self, id: &str) -> Value {
        let (status, body) = self.get(&format!("/v1/docs/{id}")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body["doc"].clone()
    }

    /// Ids of a list call, in order, and its pagination.
    async fn list(&self, query: &str) -> (Vec<String>, Value) {
        let (status, body) = self.get(&format!("/v1/docs{query}")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["success"], json!(true));
        let docs = body["docs"].as_array().expect("docs array");
        for doc in docs {
            assert_metadata_only(doc);
        }
        let ids = docs.iter().map(|d| str_of(&d["id"])).collect();
        (ids, body["pagination"].clone())
    }

    async fn share(&self, id: &str, body: Value) -> Value {
        let (status, answer) = self.patch(&format!("/v1/docs/{id}/share"), body).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        assert_eq!(answer["success"], json!(true));
        assert_metadata_only(&answer["doc"]);
        answer["doc"].clone()
    }
}

fn str_of(value: &Value) -> String {
    value
        .as_str()
        .unwrap_or_else(|| panic!("a string: {value}"))
        .to_owned()
}

fn assert_metadata_only(doc: &Value) {
    let object = doc.as_object().expect("doc object");
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    keys.sort_unstable();
    let mut expected = META_FIELDS.to_vec();
    expected.sort_unstable();
    assert_eq!(keys, expected, "{doc}");
}

fn assert_iso_millis(value: &Value) {
    let text = str_of(value);
    let parsed = chrono::DateTime::parse_from_rfc3339(&text).expect("RFC 3339 timestamp");
    assert_eq!(parsed.offset().local_minus_utc(), 0, "{text}");
    // e.g. 2026-11-25T10:30:00.000Z
    assert_eq!(text.len(), 24, "{text}");
    assert!(text.ends_with('Z') && text.as_bytes()[19] == b'.', "{text}");
}

fn assert_error(status: StatusCode, body: &Value, expected: StatusCode) {
    assert_eq!(status, expected, "{body}");
    assert_eq!(body["success"], json!(false), "{body}");
    assert!(
        body["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{body}"
    );
}

/// A page response: status, headers and text.
struct Page {
    status: StatusCode,
    headers: reqwest::header::HeaderMap,
    text: String,
}

async fn page_request(method: Method, url: &str, form: Option<&[(&str, &str)]>) -> Page {
    let mut request = shared().page_http.request(method, url);
    if let Some(form) = form {
        request = request.form(form);
    }
    let response = request.send().await.expect("page request");
    let status = response.status();
    let headers = response.headers().clone();
    let text = response.text().await.expect("page body");
    Page {
        status,
        headers,
        text,
    }
}

async fn open_page(url: &str) -> Page {
    page_request(Method::GET, url, None).await
}

async fn save_by_link(url: &str, content: &str) -> Page {
    page_request(Method::POST, url, Some(&[("content", content)])).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_answers_201_with_metadata_only_in_the_default_project() {
    let me = owner();
    let default_project = me.default_project().await;
    let doc = me
        .create(json!({"title": "  Launch notes  ", "content": "<p>Hello</p>"}))
        .await;
    assert_metadata_only(&doc);
    assert!(doc["id"].as_str().is_some_and(|id| {
        id.len() == 24
            && id
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    }));
    assert_eq!(doc["title"], json!("Launch notes"), "the title is trimmed");
    assert_eq!(doc["project_id"], json!(default_project));
    assert_eq!(doc["is_shared"], json!(false));
    assert_eq!(doc["is_editable_by_link"], json!(false));
    assert_eq!(doc["share_url"], Value::Null);
    assert_iso_millis(&doc["created_at"]);
    assert_eq!(doc["created_at"], doc["updated_at"]);

    let full = me.doc(&str_of(&doc["id"])).await;
    assert_eq!(full["content"], json!("<p>Hello</p>"));
    for field in META_FIELDS {
        assert_eq!(full[field], doc[field], "{field}");
    }
    // Content is optional: an empty document.
    let empty = me
        .create(json!({"title": "Blank", "project_id": null}))
        .await;
    assert_eq!(empty["project_id"], json!(default_project));
    assert_eq!(me.doc(&str_of(&empty["id"])).await["content"], json!(""));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn titles_and_field_types_are_validated() {
    let me = ana();
    for (body, why) in [
        (json!({}), "title missing"),
        (json!({"content": "<p>x</p>"}), "title missing"),
        (json!({"title": ""}), "empty title"),
        (json!({"title": "   "}), "blank title"),
        (json!({"title": "x".repeat(201)}), "201 characters"),
        (json!({"title": null}), "null title"),
        (json!({"title": 42}), "number title"),
        (json!({"title": "ok", "content": 7}), "number content"),
        (json!({"title": "ok", "content": ["<p>"]}), "array content"),
        (json!({"title": "ok", "project_id": 5}), "number project_id"),
        (
            json!({"title": "ok", "project_id": "nope"}),
            "malformed project_id",
        ),
        (json!(["title"]), "not an object"),
    ] {
        let (status, body) = me.post("/v1/docs", body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{why}: {body}");
        assert_error(status, &body, StatusCode::BAD_REQUEST);
    }
    // Not JSON at all.
    let response = service()
        .http
        .post(service().url("/v1/docs"))
        .header("X-API-Key", me.key)
        .header("Content-Type", "application/json")
        .body("{title:")
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["success"], json!(false));

    // Exactly 200 characters (counted as characters, not bytes) is fine.
    let title: String = "é".repeat(200);
    let doc = me.create(json!({"title": title})).await;
    assert_eq!(doc["title"], json!(title));
    let (status, body) = me
        .put(
            &format!("/v1/docs/{}", str_of(&doc["id"])),
            json!({"title": "é".repeat(201)}),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creating_in_a_project_needs_edit_permission_there() {
    let me = owner();
    let project = me.project("Docs permissions").await;
    let sandbox = &service().sandbox;
    assert!(sandbox.set_project_member_permission(&project, ANA, "edit"));
    assert!(sandbox.set_project_member_permission(&project, BEN, "view"));

    let mine = me
        .create(json!({"title": "Owner's", "project_id": project}))
        .await;
    assert_eq!(mine["project_id"], json!(project));
    let anas = ana()
        .create(json!({"title": "Ana's", "project_id": project}))
        .await;
    assert_eq!(anas["project_id"], json!(project));

    let (status, body) = ben()
        .post("/v1/docs", json!({"title": "Ben's", "project_id": project}))
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN);
    let (status, body) = chloe()
        .post(
            "/v1/docs",
            json!({"title": "Chloé's", "project_id": project}),
        )
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN);
    let (status, body) = me
        .post(
            "/v1/docs",
            json!({"title": "Nowhere", "project_id": "0123456789abcdef01234567"}),
        )
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN);
    // Nothing was created by the refused calls.
    let (ids, _) = me.list(&format!("?project_id={project}")).await;
    assert_eq!(ids.len(), 2, "{ids:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn members_read_editors_write_only_the_owner_deletes_strangers_see_nothing() {
    let me = owner();
    let project = me.project("Docs access").await;
    let sandbox = &service().sandbox;
    assert!(sandbox.set_project_member_permission(&project, ANA, "full"));
    assert!(sandbox.set_project_member_permission(&project, BEN, "view"));
    let doc = me
        .create(json!({"title": "Team plan", "content": "<p>v1</p>", "project_id": project}))
        .await;
    let id = str_of(&doc["id"]);
    let path = format!("/v1/docs/{id}");

    // Reading: owner and every member; a stranger is told it does not exist.
    assert_eq!(ana().doc(&id).await["content"], json!("<p>v1</p>"));
    assert_eq!(ben().doc(&id).await["title"], json!("Team plan"));
    let (status, body) = chloe().get(&path).await;
    assert_error(status, &body, StatusCode::NOT_FOUND);

    // Writing: members with edit or full permission; view members are refused.
    let (status, body) = ana().put(&path, json!({"content": "<p>v2</p>"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["doc"]["content"], json!("<p>v2</p>"));
    let (status, body) = ben().put(&path, json!({"content": "<p>v3</p>"})).await;
    assert_error(status, &body, StatusCode::FORBIDDEN);
    let (status, body) = chloe().put(&path, json!({"content": "<p>v3</p>"})).await;
    assert_error(status, &body, StatusCode::NOT_FOUND);
    let (status, body) = ben()
        .patch(&format!("{path}/share"), json!({"shared": true}))
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN);
    let (status, body) = chloe()
        .patch(&format!("{path}/share"), json!({"shared": true}))
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND);
    let shared = ana().share(&id, json!({"shared": true})).await;
    assert_eq!(shared["is_shared"], json!(true));

    // Deleting: the owner only; members get 403, strangers 404.
    for member in [ana(), ben()] {
        let (status, body) = member.delete(&path).await;
        assert_error(status, &body, StatusCode::FORBIDDEN);
    }
    let (status, body) = chloe().delete(&path).await;
    assert_error(status, &body, StatusCode::NOT_FOUND);
    assert_eq!(me.doc(&id).await["content"], json!("<p>v2</p>"));

    // A document a member wrote: the project's owner is not its owner.
    let anas = ana()
        .create(json!({"title": "Ana's draft", "project_id": project}))
        .await;
    let anas_path = format!("/v1/docs/{}", str_of(&anas["id"]));
    let (status, body) = me.delete(&anas_path).await;
    assert_error(status, &body, StatusCode::FORBIDDEN);
    let (status, body) = ana().delete(&anas_path).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let (status, body) = me.delete(&path).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_is_metadata_newest_edit_first_with_a_project_filter() {
    let me = owner();
    let project = me.project("Docs list").await;
    assert!(
        service()
            .sandbox
            .set_project_member_permission(&project, ANA, "edit")
    );
    let first = me
        .create(json!({"title": "First", "content": "<p>1</p>", "project_id": project}))
        .await;
    let second = me
        .create(json!({"title": "Second", "project_id": project}))
        .await;
    let third = ana()
        .create(json!({"title": "Third", "project_id": project}))
        .await;
    let [first, second, third] = [&first, &second, &third].map(|d| str_of(&d["id"]));
    let (ids, pagination) = me.list(&format!("?project_id={project}")).await;
    assert_eq!(ids, [third.clone(), second.clone(), first.clone()]);
    assert_eq!(
        pagination,
        json!({"page": 1, "limit": 20, "total": 3, "pages": 1})
    );
    // An edit moves a document to the front.
    let (status, _) = me
        .put(
            &format!("/v1/docs/{first}"),
            json!({"title": "First, edited"}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (ids, _) = me.list(&format!("?project_id={project}")).await;
    assert_eq!(ids, [first.clone(), third.clone(), second.clone()]);

    // Paging within the filter.
    let (ids, pagination) = me
        .list(&format!("?project_id={project}&page=2&limit=2"))
        .await;
    assert_eq!(ids, [second]);
    assert_eq!(
        pagination,
        json!({"page": 2, "limit": 2, "total": 3, "pages": 2})
    );
    let (ids, pagination) = me.list(&format!("?project_id={project}&page=9")).await;
    assert!(ids.is_empty());
    assert_eq!(pagination["total"], json!(3));

    // Without the filter: documents across the caller's projects, member projects included.
    let (ids, _) = ana().list("?limit=50").await;
    assert!(ids.contains(&first) && ids.contains(&third), "{ids:?}");
    let (ids, _) = chloe().list("?limit=50").await;
    assert!(!ids.contains(&first) && !ids.contains(&third), "{ids:?}");

    // A project the caller cannot read: 404, not an empty list; malformed: 400.
    let (status, body) = chloe().get(&format!("/v1/docs?project_id={project}")).await;
    assert_error(status, &body, StatusCode::NOT_FOUND);
    let (status, body) = me.get("/v1/docs?project_id=abc").await;
    assert_error(status, &body, StatusCode::BAD_REQUEST);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_and_limit_default_20_cap_50_and_refuse_nonsense() {
    let me = chloe();
    let project = me.project("Paging").await;
    let mut created = Vec::new();
    for n in 0..51 {
        let doc = me
            .create(json!({"title": format!("Page doc {n}"), "project_id": project}))
            .await;
        created.push(str_of(&doc["id"]));
    }
    created.reverse(); // newest first
    let filter = format!("?project_id={project}");
    let (ids, pagination) = me.list(&filter).await;
    assert_eq!(ids, created[..20]);
    assert_eq!(
        pagination,
        json!({"page": 1, "limit": 20, "total": 51, "pages": 3})
    );
    let (ids, pagination) = me.list(&format!("{filter}&limit=500")).await;
    assert_eq!(ids, created[..50], "over 50 is clamped to 50");
    assert_eq!(
        pagination,
        json!({"page": 1, "limit": 50, "total": 51, "pages": 2})
    );
    let (ids, _) = me.list(&format!("{filter}&limit=50&page=2")).await;
    assert_eq!(ids, created[50..]);
    for bad in [
        "limit=0",
        "limit=-1",
        "limit=abc",
        "limit=2.5",
        "limit=",
        "page=0",
        "page=-3",
        "page=x",
    ] {
        let (status, body) = me.get(&format!("/v1/docs{filter}&{bad}")).await;
        assert_error(status, &body, StatusCode::BAD_REQUEST);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn put_replaces_title_or_content_and_moves_updated_at() {
    let me = owner();
    let doc = me
        .create(json!({"title": "Draft", "content": "<p>old one</p><p>old two</p>"}))
        .await;
    let id = str_of(&doc["id"]);
    let path = format!("/v1/docs/{id}");

    let (status, body) = me.put(&path, json!({"title": "Renamed"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["success"], json!(true));
    let renamed = &body["doc"];
    assert_eq!(renamed["title"], json!("Renamed"));
    assert_eq!(
        renamed["content"],
        json!("<p>old one</p><p>old two</p>"),
        "title-only keeps the content"
    );
    assert_eq!(renamed["created_at"], doc["created_at"]);
    assert!(str_of(&renamed["updated_at"]) > str_of(&doc["updated_at"]));

    let (status, body) = me
        .put(&path, json!({"content": "<h2>Only this</h2>"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let replaced = &body["doc"];
    assert_eq!(
        replaced["title"],
        json!("Renamed"),
        "content-only keeps the title"
    );
    assert_eq!(
        replaced["content"],
        json!("<h2>Only this</h2>"),
        "full replacement"
    );
    assert!(str_of(&replaced["updated_at"]) > str_of(&renamed["updated_at"]));
    let stored = me.doc(&id).await;
    assert_eq!(stored["content"], json!("<h2>Only this</h2>"));
    assert_eq!(stored["updated_at"], replaced["updated_at"]);

    let (status, body) = me.put(&path, json!({"title": "Both", "content": ""})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["doc"]["content"], json!(""));

    for bad in [
        json!({}),
        json!({"title": ""}),
        json!({"title": null}),
        json!({"content": 3}),
        json!({"content": null}),
    ] {
        let (status, body) = me.put(&path, bad).await;
        assert_error(status, &body, StatusCode::BAD_REQUEST);
    }
    assert_eq!(me.doc(&id).await["title"], json!("Both"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn share_sets_rather_than_toggles_and_keeps_one_stable_link() {
    let me = owner();
    let doc = me
        .create(json!({"title": "Shared plan", "content": "<p>Read me</p>"}))
        .await;
    let id = str_of(&doc["id"]);

    let shared = me.share(&id, json!({"shared": true})).await;
    assert_eq!(shared["id"], json!(id));
    assert_eq!(shared["is_shared"], json!(true));
    assert_eq!(
        shared["is_editable_by_link"],
        json!(false),
        "editable defaults to false"
    );
    let url = str_of(&shared["share_url"]);
    let prefix = format!("{}/share/docs/", service().sandbox.origin());
    let token = url
        .strip_prefix(&prefix)
        .expect("share URL under the origin");
    assert!(token.len() >= 32 && token.bytes().all(|b| b.is_ascii_alphanumeric()));
    assert_eq!(
        shared["updated_at"], doc["updated_at"],
        "sharing is not an edit"
    );

    // Sharing again is a set, not a toggle: still shared, same link.
    let again = me.share(&id, json!({"shared": true})).await;
    assert_eq!(again["is_shared"], json!(true));
    assert_eq!(again["share_url"], json!(url));
    let editable = me
        .share(&id, json!({"shared": true, "editable": true}))
        .await;
    assert_eq!(editable["is_editable_by_link"], json!(true));
    assert_eq!(editable["share_url"], json!(url));
    let read_only = me.share(&id, json!({"shared": true})).await;
    assert_eq!(read_only["is_editable_by_link"], json!(false));
    // The get and list answers carry the same state.
    let full = me.doc(&id).await;
    assert_eq!(full["is_shared"], json!(true));
    assert_eq!(full["share_url"], json!(url));
    assert_eq!(open_page(&url).await.status, StatusCode::OK);

    // Unshare: no URL, not editable, the page is gone.
    me.share(&id, json!({"shared": true, "editable": true}))
        .await;
    let unshared = me
        .share(&id, json!({"shared": false, "editable": true}))
        .await;
    assert_eq!(unshared["is_shared"], json!(false));
    assert_eq!(unshared["is_editable_by_link"], json!(false));
    assert_eq!(unshared["share_url"], Value::Null);
    let page = open_page(&url).await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    assert!(!page.text.contains("Read me"));
    let unshared_again = me.share(&id, json!({"shared": false})).await;
    assert_eq!(unshared_again["is_shared"], json!(false));

    // Reshare: the very same link works again.
    let reshared = me.share(&id, json!({"shared": true})).await;
    assert_eq!(reshared["share_url"], json!(url));
    assert_eq!(open_page(&url).await.status, StatusCode::OK);

    let share_path = format!("/v1/docs/{id}/share");
    for bad in [
        json!({}),
        json!({"editable": true}),
        json!({"shared": "true"}),
        json!({"shared": 1}),
        json!({"shared": null}),
        json!({"shared": true, "editable": "yes"}),
    ] {
        let (status, body) = me.patch(&share_path, bad).await;
        assert_error(status, &body, StatusCode::BAD_REQUEST);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_share_page_is_escaped_read_only_html() {
    let me = owner();
    let doc = me
        .create(json!({
            "title": "Q3 <script>alert('t')</script> & \"plans\"",
            "content": "<h1>Goals</h1><p>Ship <strong>docs</strong></p>\
                <table><thead><tr><th>Who</th></tr></thead><tbody><tr><td>Ana</td></tr></tbody></table>",
        }))
        .await;
    let id = str_of(&doc["id"]);
    let url = str_of(&me.share(&id, json!({"shared": true})).await["share_url"]);
    let page = open_page(&url).await;
    assert_eq!(page.status, StatusCode::OK);
    let content_type = page.headers["content-type"].to_str().expect("header");
    assert!(content_type.starts_with("text/html"), "{content_type}");
    assert!(page.headers.contains_key("content-security-policy"));
    assert!(page.text.starts_with("<!doctype html>"));
    // The title is text, never markup.
    assert!(
        page.text
            .contains("Q3 &lt;script&gt;alert(&#39;t&#39;)&lt;/script&gt; &amp; &quot;plans&quot;"),
        "{}",
        page.text
    );
    assert!(!page.text.contains("<script"));
    // The sanitised content is rendered as HTML.
    assert!(
        page.text
            .contains("<h1>Goals</h1><p>Ship <strong>docs</strong></p>")
    );
    assert!(page.text.contains("<th>Who</th>"));
    // Read-only: no edit form, and a post is refused without a change.
    assert!(!page.text.contains("<form") && !page.text.contains("<textarea"));
    let refused = save_by_link(&url, "<p>vandalised</p>").await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert!(refused.text.contains("read-only"), "{}", refused.text);
    let stored = me.doc(&id).await;
    assert!(str_of(&stored["content"]).contains("Goals"));
    assert_eq!(stored["updated_at"], doc["updated_at"]);

    // A token that was never minted.
    let unknown = open_page(&format!(
        "{}/share/docs/00000000000000000000000000000000",
        service().sandbox.origin()
    ))
    .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert!(unknown.text.contains("<!doctype html>"));
    let unknown_post = save_by_link(
        &format!("{}/share/docs/nope", service().sandbox.origin()),
        "<p>x</p>",
    )
    .await;
    assert_eq!(unknown_post.status, StatusCode::NOT_FOUND);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_editable_link_saves_sanitised_content_and_redirects_back() {
    let me = owner();
    let doc = me
        .create(json!({"title": "Open notes", "content": "<p>a &lt;/textarea&gt; b</p>"}))
        .await;
    let id = str_of(&doc["id"]);
    let shared = me
        .share(&id, json!({"shared": true, "editable": true}))
        .await;
    let url = str_of(&shared["share_url"]);
    let page = open_page(&url).await;
    assert_eq!(page.status, StatusCode::OK);
    let token = url.rsplit('/').next().expect("token");
    assert!(
        page.text.contains(&format!(
            "<form method=\"post\" action=\"/share/docs/{token}\">"
        )),
        "{}",
        page.text
    );
    // The textarea holds the escaped HTML, so content cannot close it early.
    assert!(
        page.text.contains(
            "<textarea id=\"content\" name=\"content\" rows=\"16\">&lt;p&gt;a &amp;lt;/textarea&amp;gt; b&lt;/p&gt;</textarea>"
        ),
        "{}",
        page.text
    );
    assert!(page.text.contains("<button type=\"submit\">Save</button>"));

    let saved = save_by_link(
        &url,
        "<h2>Edited by link</h2><script>steal()</script><div onclick=\"x()\">plain</div>",
    )
    .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER);
    let location = saved.headers["location"].to_str().expect("location");
    assert!(
        location.starts_with(&format!("/share/docs/{token}")),
        "{location}"
    );
    let stored = me.doc(&id).await;
    assert_eq!(stored["content"], json!("<h2>Edited by link</h2>plain"));
    assert!(str_of(&stored["updated_at"]) > str_of(&doc["updated_at"]));
    let after = open_page(&format!("{}{location}", service().sandbox.origin())).await;
    assert_eq!(after.status, StatusCode::OK);
    assert!(after.text.contains("<h2>Edited by link</h2>plain"));
    assert!(after.text.contains("Saved."));

    // A form without the content field changes nothing.
    let empty = page_request(Method::POST, &url, Some(&[("other", "x")])).await;
    assert_eq!(empty.status, StatusCode::BAD_REQUEST);
    // Turning editing off closes the form and the post.
    me.share(&id, json!({"shared": true, "editable": false}))
        .await;
    assert!(!open_page(&url).await.text.contains("<textarea"));
    assert_eq!(
        save_by_link(&url, "<p>late</p>").await.status,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        me.doc(&id).await["content"],
        json!("<h2>Edited by link</h2>plain")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_is_soft_and_the_document_vanishes_everywhere() {
    let me = owner();
    let project = me.project("Docs delete").await;
    let keep = me
        .create(json!({"title": "Keep", "project_id": project}))
        .await;
    let gone = me
        .create(json!({"title": "Gone", "project_id": project}))
        .await;
    let id = str_of(&gone["id"]);
    let path = format!("/v1/docs/{id}");
    let url = str_of(&me.share(&id, json!({"shared": true})).await["share_url"]);

    let (status, body) = me.delete(&path).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body,
        json!({"success": true, "message": "Document deleted"})
    );

    let (status, body) = me.get(&path).await;
    assert_error(status, &body, StatusCode::NOT_FOUND);
    let (status, body) = me.put(&path, json!({"title": "Back"})).await;
    assert_error(status, &body, StatusCode::NOT_FOUND);
    let (status, body) = me
        .patch(&format!("{path}/share"), json!({"shared": true}))
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND);
    let (status, body) = me.delete(&path).await;
    assert_error(status, &body, StatusCode::NOT_FOUND);
    assert_eq!(open_page(&url).await.status, StatusCode::NOT_FOUND);
    let (ids, pagination) = me.list(&format!("?project_id={project}")).await;
    assert_eq!(ids, [str_of(&keep["id"])]);
    assert_eq!(pagination["total"], json!(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_ids_are_400_and_unknown_ids_404() {
    let me = ana();
    for id in ["xyz", "0123456789ABCDEF01234567", "0123456789abcdef0123456"] {
        let path = format!("/v1/docs/{id}");
        let (status, body) = me.get(&path).await;
        assert_error(status, &body, StatusCode::BAD_REQUEST);
        let (status, body) = me.put(&path, json!({"title": "x"})).await;
        assert_error(status, &body, StatusCode::BAD_REQUEST);
        let (status, body) = me
            .patch(&format!("{path}/share"), json!({"shared": true}))
            .await;
        assert_error(status, &body, StatusCode::BAD_REQUEST);
        let (status, body) = me.delete(&path).await;
        assert_error(status, &body, StatusCode::BAD_REQUEST);
    }
    let path = "/v1/docs/0123456789abcdef01234567";
    let (status, body) = me.get(path).await;
    assert_error(status, &body, StatusCode::NOT_FOUND);
    let (status, body) = me.put(path, json!({"title": "x"})).await;
    assert_error(status, &body, StatusCode::NOT_FOUND);
    let (status, body) = me
        .patch(&format!("{path}/share"), json!({"shared": true}))
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND);
    let (status, body) = me.delete(path).await;
    assert_error(status, &body, StatusCode::NOT_FOUND);
}

/// Each element the contract supports survives a write unchanged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_supported_element_is_kept() {
    let me = ana();
    let cases = [
        "<h1>Heading one</h1>",
        "<h2>Heading two</h2>",
        "<h3>Heading three</h3>",
        "<p>A paragraph</p>",
        "<ul><li>bullet</li></ul>",
        "<ol><li>first</li><li>second</li></ol>",
        "<table><thead><tr><th>Head</th></tr></thead><tbody><tr><td>Cell</td></tr></tbody></table>",
        "<blockquote>Quoted</blockquote>",
        "<p><strong>bold</strong> and <em>italic</em></p>",
        "<p><a href=\"https://example.com/page?q=1\">secure</a></p>",
        "<p><a href=\"http://example.com/\">plain</a></p>",
        "<p><a href=\"mailto:team@example.com\">mail</a></p>",
    ];
    // Through create (read back with get) and through update (read from the answer).
    let joined: String = cases.concat();
    let doc = me
        .create(json!({"title": "All kept", "content": joined}))
        .await;
    let id = str_of(&doc["id"]);
    assert_eq!(me.doc(&id).await["content"], json!(joined));
    for html in cases {
        let (status, body) = me
            .put(&format!("/v1/docs/{id}"), json!({"content": html}))
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["doc"]["content"], json!(html), "{html}");
    }
}

/// Each element outside the set: removed with its content (script, style, iframe) or
/// unwrapped (any other), and every attribute but a safe `a href` dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_else_is_removed_or_unwrapped() {
    let me = ana();
    let doc = me
        .create(json!({
            "title": "Sanitised",
            "content": "<p>keep</p><script>alert('created')</script>",
        }))
        .await;
    let id = str_of(&doc["id"]);
    assert_eq!(me.doc(&id).await["content"], json!("<p>keep</p>"));
    let cases = [
        // Removed together with their content.
        (
            "<p>a</p><script>alert(1)</script><p>b</p>",
            "<p>a</p><p>b</p>",
        ),
        (
            "<p>a</p><style>p { color: red }</style><p>b</p>",
            "<p>a</p><p>b</p>",
        ),
        (
            "<p>a</p><iframe src=\"https://example.com\">frame text</iframe><p>b</p>",
            "<p>a</p><p>b</p>",
        ),
        // Unwrapped: the text stays, the tag goes.
        ("<div>in a div</div>", "in a div"),
        ("<p><span>in a span</span></p>", "<p>in a span</p>"),
        ("<h4>Heading four</h4>", "Heading four"),
        ("<h5>Five</h5><h6>Six</h6>", "FiveSix"),
        ("<p><code>let x = 1;</code></p>", "<p>let x = 1;</p>"),
        ("<pre>pre text</pre>", "pre text"),
        ("<p><b>b</b><i>i</i><u>u</u></p>", "<p>biu</p>"),
        ("<p>line<br>break</p>", "<p>linebreak</p>"),
        (
            "<p>before<img src=\"https://example.com/a.png\" alt=\"pic\">after</p>",
            "<p>beforeafter</p>",
        ),
        ("<p>rule</p><hr><p>after</p>", "<p>rule</p><p>after</p>"),
        ("<section><article>nested</article></section>", "nested"),
        (
            "<table><caption>Cap</caption><tbody><tr><td>c</td></tr></tbody><tfoot><tr><td>f</td></tr></tfoot></table>",
            "<table>Cap<tbody><tr><td>c</td></tr></tbody><tr><td>f</td></tr></table>",
        ),
        // Attributes: none kept except a safe href.
        (
            "<p class=\"c\" style=\"color:red\" id=\"i\" onclick=\"x()\">attrs</p>",
            "<p>attrs</p>",
        ),
        (
            "<a href=\"https://example.com\" target=\"_blank\" rel=\"opener\" title=\"t\">link</a>",
            "<a href=\"https://example.com\">link</a>",
        ),
        ("<a href=\"javascript:alert(1)\">js</a>", "<a>js</a>"),
        ("<a href=\"data:text/html,x\">data</a>", "<a>data</a>"),
        ("<a href=\"/relative/path\">relative</a>", "<a>relative</a>"),
        ("<a href=\"ftp://example.com/f\">ftp</a>", "<a>ftp</a>"),
        // Comments go; text is escaped.
        ("<!-- note --><p>1 < 2 & 3</p>", "<p>1 &lt; 2 &amp; 3</p>"),
    ];
    for (input, expected) in cases {
        let (status, body) = me
            .put(&format!("/v1/docs/{id}"), json!({"content": input}))
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["doc"]["content"], json!(expected), "{input}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn docs_routes_allow_120_per_minute_per_user() {
    let me = dev();
    for n in 0..120 {
        let (status, body) = me.get("/v1/docs?limit=1").await;
        assert_eq!(status, StatusCode::OK, "request {n}: {body}");
    }
    for (method, path, body) in [
        (Method::GET, "/v1/docs", None),
        (
            Method::POST,
            "/v1/docs",
            Some(json!({"title": "One too many"})),
        ),
        (Method::GET, "/v1/docs/0123456789abcdef01234567", None),
    ] {
        let response = {
            let mut request = service()
                .http
                .request(method, service().url(path))
                .header("X-API-Key", me.key);
            if let Some(body) = body {
                request = request.json(&body);
            }
            request.send().await.expect("request")
        };
        assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(response.headers()["ratelimit-limit"], "120");
        assert_eq!(response.headers()["ratelimit-remaining"], "0");
        let body: Value = response.json().await.expect("json");
        assert_eq!(body["status"], json!(false), "{body}");
        assert_eq!(body["error"], json!("Too many generation requests"));
        assert_eq!(body["retryAfter"], json!(60));
        assert!(
            body["message"]
                .as_str()
                .is_some_and(|m| m.contains("document"))
        );
    }
    // Nothing was created by the refused POST, and other groups are unaffected.
    let (status, _) = me.get("/v1/color-palettes").await;
    assert_eq!(status, StatusCode::OK);
}
