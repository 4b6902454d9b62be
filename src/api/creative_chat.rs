//! Creative chat, the generation-side chat of document 1 (route index "Chat"): a message is
//! a generation of kind [`GenerationKind::Chat`] sent to POST /v1/chat/conversations
//! (`{message, session_id?, model?}`), answered with a `message_id` polled like any job
//! (completed `result.content` is the Markdown answer). The older synchronous answer
//! (post_chat_stateless.json: `content` and `credits_used`, no handle) is a job finished at
//! once (see [`SubmitResponse::is_finished_answer`](super::SubmitResponse)). Conversations
//! and their messages are read from GET /v1/chat/conversations and
//! GET /v1/chat/conversations/:id/messages, decoded tolerantly.

use super::client::{ApiClient, encode_segment};
use super::error::ApiError;
use super::types::{
    CHAT_CATALOG_TYPE, GenerationKind, GenerationRequest, GenerationSpec, JobState, ModelRecord,
};
use serde::Deserialize;
use serde_json::{Value, json};

/// Conversations asked for per page of the list.
pub const CONVERSATIONS_PAGE_LIMIT: u32 = 50;
/// Messages asked for per page when a conversation is read (the service may clamp it).
pub const MESSAGES_PAGE_LIMIT: u32 = 100;
/// Pages of one conversation read at most (a very long conversation shows its start).
pub const MAX_MESSAGE_PAGES: u32 = 20;

/// A chat message to send: `message` in `conversation` (`None`: a new conversation) with
/// `model` (`None`: the service's routed default, "auto").
pub fn chat_spec(message: &str, conversation: Option<&str>, model: Option<&str>) -> GenerationSpec {
    GenerationSpec::new(
        GenerationKind::Chat,
        GenerationRequest {
            prompt: message.to_owned(),
            model: model.map(str::to_owned),
            session_id: conversation.map(str::to_owned),
            ..GenerationRequest::default()
        },
    )
}

/// The body of a chat submit: `{message, session_id?, model?}` and nothing else.
pub(super) fn chat_body(spec: &GenerationSpec) -> Result<Value, ApiError> {
    let request = &spec.request;
    if request.prompt.trim().is_empty() {
        return Err(ApiError::Invalid(
            "not sent: the message is empty".to_owned(),
        ));
    }
    let mut body = json!({ "message": request.prompt });
    if let Some(session_id) = request
        .session_id
        .as_deref()
        .filter(|s| !s.trim().is_empty())
    {
        body["session_id"] = json!(session_id);
    }
    if let Some(model) = request.model.as_deref().filter(|m| !m.trim().is_empty()) {
        body["model"] = json!(model);
    }
    Ok(body)
}

/// The chat models of the catalog (type `text`), in the catalog's order.
pub fn chat_models(catalog: &[ModelRecord]) -> Vec<&ModelRecord> {
    catalog
        .iter()
        .filter(|m| m.has_type(CHAT_CATALOG_TYPE))
        .collect()
}

/// The model "auto" most likely runs: the first recommended chat model, else the first.
pub fn routed_chat_model(catalog: &[ModelRecord]) -> Option<&ModelRecord> {
    let models = chat_models(catalog);
    models
        .iter()
        .find(|m| m.recommended == Some(true))
        .or(models.first())
        .copied()
}

/// What one message costs before it is sent: the model's `credit` (the catalog has no
/// token rates, so the contract's flat credit per completion applies). For auto, the
/// routed model's; `None` while unknown.
pub fn chat_message_price(catalog: &[ModelRecord], model: Option<&str>) -> Option<f64> {
    let record = match model {
        Some(id) => catalog
            .iter()
            .find(|m| m.identifier == id && m.has_type(CHAT_CATALOG_TYPE)),
        None => routed_chat_model(catalog),
    }?;
    record.credit.filter(|c| c.is_finite() && *c >= 0.0)
}

/// Why `message` cannot be sent with `model` (the chosen model, or the routed one for
/// auto), in words for the field; `None` when it can.
pub fn chat_message_problem(message: &str, model: Option<&ModelRecord>) -> Option<String> {
    if message.trim().is_empty() {
        return Some("Write a message first.".to_owned());
    }
    let model = model?;
    let chars = message.chars().count();
    let max = model.max_prompt_chars() as usize;
    (chars > max).then(|| {
        format!(
            "This message has {chars} characters; {} accepts at most {max}.",
            model.display_name()
        )
    })
}

/// The `pagination` object of both lists.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatPagination {
    pub page: Option<u64>,
    pub limit: Option<u64>,
    pub total: Option<u64>,
    pub pages: Option<u64>,
}

impl ChatPagination {
    fn from_value(value: Option<&Value>) -> Self {
        let number = |key: &str| value.and_then(|v| v.get(key)).and_then(number_of);
        ChatPagination {
            page: number("page"),
            limit: number("limit"),
            total: number("total"),
            pages: number("pages"),
        }
    }

    /// Whether a page after `page` exists.
    pub fn has_more_after(&self, page: u64) -> bool {
        self.pages.is_some_and(|pages| page < pages)
    }
}

/// One conversation of GET /v1/chat/conversations.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatConversation {
    pub session_id: String,
    pub name: String,
    pub last_activity: Option<String>,
    pub created_at: Option<String>,
}

impl ChatConversation {
    fn from_value(value: &Value) -> Option<Self> {
        let session_id = text_of(value, &["session_id", "sessionId", "id", "_id"])?;
        Some(ChatConversation {
            name: text_of(value, &["name", "title"]).unwrap_or_default(),
            last_activity: text_of(value, &["last_activity", "lastActivity", "updated_at"]),
            created_at: text_of(value, &["created_at", "createdAt"]),
            session_id,
        })
    }

    /// The name to show: the service's, else the id.
    pub fn display_name(&self) -> &str {
        if self.name.trim().is_empty() {
            &self.session_id
        } else {
            &self.name
        }
    }
}

/// GET /v1/chat/conversations: `{success, conversations, pagination}`; entries without an
/// id are skipped.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(from = "Value")]
pub struct ChatConversationsPage {
    pub success: Option<bool>,
    pub conversations: Vec<ChatConversation>,
    pub pagination: ChatPagination,
}

impl From<Value> for ChatConversationsPage {
    fn from(value: Value) -> Self {
        ChatConversationsPage {
            success: value.get("success").and_then(Value::as_bool),
            conversations: list_at(&value, &["conversations", "data", "sessions"])
                .iter()
                .filter_map(ChatConversation::from_value)
                .collect(),
            pagination: ChatPagination::from_value(value.get("pagination")),
        }
    }
}

/// Who wrote a message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ChatRole {
    User,
    #[default]
    Assistant,
    /// A role this client does not know (shown as the service's).
    Other(String),
}

impl From<&str> for ChatRole {
    fn from(value: &str) -> Self {
        match value.trim().to_ascii_lowercase().as_str() {
            "user" | "human" => ChatRole::User,
            "assistant" | "ai" | "model" => ChatRole::Assistant,
            _ => ChatRole::Other(value.to_owned()),
        }
    }
}

/// The model that wrote an answer: `{identifier, name, provider}` (a bare string is read as
/// the identifier).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatModelRef {
    pub identifier: String,
    pub name: Option<String>,
    pub provider: Option<String>,
}

impl ChatModelRef {
    fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::String(id) if !id.trim().is_empty() => Some(ChatModelRef {
                identifier: id.clone(),
                ..ChatModelRef::default()
            }),
            Value::Object(_) => Some(ChatModelRef {
                identifier: text_of(value, &["identifier", "id"])?,
                name: text_of(value, &["name"]),
                provider: text_of(value, &["provider"]),
            }),
            _ => None,
        }
    }

    pub fn display_name(&self) -> &str {
        self.name
            .as_deref()
            .filter(|n| !n.trim().is_empty())
            .unwrap_or(&self.identifier)
    }
}

/// One message of GET /v1/chat/conversations/:id/messages.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatMessage {
    pub message_id: String,
    pub role: ChatRole,
    /// Markdown for answers; empty while an answer is being written.
    pub content: String,
    /// The message's state (an answer's is its generation's); absent reads as completed.
    pub status: JobState,
    pub model: Option<ChatModelRef>,
    pub created_at: Option<String>,
    pub credits_used: Option<f64>,
    /// Why an answer failed, when the service says.
    pub error: Option<String>,
}

impl ChatMessage {
    fn from_value(value: &Value) -> Option<Self> {
        if !value.is_object() {
            return None;
        }
        let role = text_of(value, &["role"]).unwrap_or_default();
        Some(ChatMessage {
            message_id: text_of(value, &["message_id", "messageId", "id", "_id"])
                .unwrap_or_default(),
            role: ChatRole::from(role.as_str()),
            content: text_of(value, &["content", "text"]).unwrap_or_default(),
            status: text_of(value, &["status", "state"])
                .map(JobState::from)
                .unwrap_or(JobState::Completed),
            model: value.get("model").and_then(ChatModelRef::from_value),
            created_at: text_of(value, &["created_at", "createdAt"]),
            credits_used: value
                .get("credits_used")
                .or_else(|| value.get("creditsUsed"))
                .and_then(super::lenient::value_as_f64),
            error: match value.get("error") {
                Some(Value::String(text)) if !text.trim().is_empty() => Some(text.clone()),
                Some(Value::Object(map)) => map
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                _ => None,
            },
        })
    }
}

/// GET /v1/chat/conversations/:id/messages: `{success, session_id, messages, pagination}`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(from = "Value")]
pub struct ChatMessagesPage {
    pub success: Option<bool>,
    pub session_id: Option<String>,
    pub messages: Vec<ChatMessage>,
    pub pagination: ChatPagination,
}

impl From<Value> for ChatMessagesPage {
    fn from(value: Value) -> Self {
        ChatMessagesPage {
            success: value.get("success").and_then(Value::as_bool),
            session_id: text_of(&value, &["session_id", "sessionId"]),
            messages: list_at(&value, &["messages", "data"])
                .iter()
                .filter_map(ChatMessage::from_value)
                .collect(),
            pagination: ChatPagination::from_value(value.get("pagination")),
        }
    }
}

impl ApiClient {
    /// GET /v1/chat/conversations?page&limit.
    pub async fn chat_conversations(
        &self,
        page: u32,
        limit: u32,
    ) -> Result<ChatConversationsPage, ApiError> {
        let request = self
            .service
            .get(self.url("/v1/chat/conversations"))
            .query(&[("page", page.max(1)), ("limit", limit.max(1))]);
        self.json(request).await
    }

    /// GET /v1/chat/conversations/:id/messages?page&limit.
    pub async fn chat_messages(
        &self,
        session_id: &str,
        page: u32,
        limit: u32,
    ) -> Result<ChatMessagesPage, ApiError> {
        let url = self.url(&format!(
            "/v1/chat/conversations/{}/messages",
            encode_segment(session_id)
        ));
        let request = self
            .service
            .get(url)
            .query(&[("page", page.max(1)), ("limit", limit.max(1))]);
        self.json(request).await
    }
}

/// First of `keys` holding a non-blank string (or a number), as text.
fn text_of(value: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|key| match value.get(*key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    })
}

fn number_of(value: &Value) -> Option<u64> {
    super::lenient::value_as_f64(value)
        .filter(|n| n.is_finite() && *n >= 0.0)
        .map(|n| n as u64)
}

/// The first array found under one of `keys` (empty when none).
fn list_at<'a>(value: &'a Value, keys: &[&str]) -> &'a [Value] {
    keys.iter()
        .find_map(|key| value.get(*key).and_then(Value::as_array))
        .map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(id: &str, credit: f64, recommended: bool) -> ModelRecord {
        ModelRecord {
            identifier: id.into(),
            name: id.to_uppercase(),
            types: vec!["text".into()],
            credit: Some(credit),
            recommended: Some(recommended),
            max_prompt_length: Some(10),
            ..ModelRecord::default()
        }
    }

    #[test]
    fn the_body_carries_only_the_chat_fields() {
        let spec = chat_spec("Hello there", Some("def456"), Some("gpt-4o"));
        assert_eq!(spec.kind, GenerationKind::Chat);
        assert_eq!(
            chat_body(&spec).expect("body"),
            json!({"message": "Hello there", "session_id": "def456", "model": "gpt-4o"})
        );
        let fresh = chat_spec("Hi", None, None);
        assert_eq!(chat_body(&fresh).expect("body"), json!({"message": "Hi"}));
        assert!(matches!(
            chat_body(&chat_spec("  ", None, None)),
            Err(ApiError::Invalid(_))
        ));
    }

    #[test]
    fn price_is_the_models_credit_and_auto_uses_the_routed_one() {
        let image = ModelRecord {
            identifier: "img".into(),
            types: vec!["text_to_img".into()],
            credit: Some(9.0),
            ..ModelRecord::default()
        };
        let catalog = vec![image, model("mini", 1.0, false), model("big", 3.0, true)];
        assert_eq!(chat_message_price(&catalog, Some("mini")), Some(1.0));
        assert_eq!(chat_message_price(&catalog, None), Some(3.0));
        assert_eq!(chat_message_price(&catalog, Some("img")), None);
        assert_eq!(chat_models(&catalog).len(), 2);
    }

    #[test]
    fn empty_and_too_long_messages_are_refused_in_words() {
        let small = model("mini", 1.0, false);
        assert_eq!(
            chat_message_problem(" \n ", Some(&small)).as_deref(),
            Some("Write a message first.")
        );
        assert!(chat_message_problem("0123456789", Some(&small)).is_none());
        let long = chat_message_problem("0123456789x", Some(&small)).expect("too long");
        assert!(long.contains("at most 10"), "{long}");
        assert!(chat_message_problem("hello", None).is_none());
    }

    #[test]
    fn lists_decode_tolerantly() {
        let page: ChatMessagesPage = serde_json::from_value(json!({
            "messages": [
                {"id": "m1", "role": "user", "content": "hi"},
                {"message_id": "m2", "role": "assistant", "content": null, "status": "processing",
                 "model": "gpt-4o"},
                {"message_id": "m3", "role": "assistant", "status": "failed",
                 "error": {"message": "provider down"}},
                "not a message"
            ],
            "pagination": {"page": "1", "limit": 50, "total": 3, "pages": 1}
        }))
        .expect("decodes");
        assert_eq!(page.messages.len(), 3);
        assert_eq!(page.messages[0].status, JobState::Completed);
        assert_eq!(page.messages[1].status, JobState::Processing);
        assert_eq!(page.messages[1].content, "");
        assert_eq!(
            page.messages[1]
                .model
                .as_ref()
                .map(|m| m.identifier.as_str()),
            Some("gpt-4o")
        );
        assert_eq!(page.messages[2].error.as_deref(), Some("provider down"));
        assert_eq!(page.pagination.page, Some(1));
        assert!(!page.pagination.has_more_after(1));
        let list: ChatConversationsPage =
            serde_json::from_value(json!({"conversations": [{"name": "no id"}, {"_id": "s1"}]}))
                .expect("decodes");
        assert_eq!(list.conversations.len(), 1);
        assert_eq!(list.conversations[0].display_name(), "s1");
    }
}
