//! The chat-completions request in the industry-standard schema: `{model, messages:[{role,
//! content}], stream?, stream_options?: {include_usage?}, max_completion_tokens?,
//! max_tokens?}` where content is a string or an array of `text` and `image_url` parts and
//! the `developer` role is read as `system`. Every refusal is a `validation_error` that
//! names the field.

use serde_json::{Map, Value};

use super::error::{CodeError, CodeResult};
use super::models::{self, ChatModel};
use super::tokens::count_tokens;

/// Prompt tokens counted for each attached image, whatever its size.
pub(crate) const TOKENS_PER_IMAGE: u64 = 85;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
    Text(String),
    ImageUrl(String),
}

#[derive(Debug, Clone)]
pub(crate) struct Message {
    pub role: &'static str,
    pub parts: Vec<Part>,
}

#[derive(Debug, Clone)]
pub(crate) struct ChatRequest {
    pub model: &'static ChatModel,
    pub messages: Vec<Message>,
    pub stream: bool,
    /// `stream_options.include_usage`: the stream ends with a usage chunk (`choices: []`).
    pub include_usage: bool,
    /// The cap on completion tokens: `max_completion_tokens`, else the older `max_tokens`.
    pub max_completion_tokens: Option<u64>,
}

impl ChatRequest {
    pub(crate) fn parse(body: &[u8]) -> CodeResult<ChatRequest> {
        let value: Value = serde_json::from_slice(body)
            .map_err(|error| CodeError::validation(format!("Invalid JSON body: {error}")))?;
        let Value::Object(body) = value else {
            return Err(CodeError::validation("The body must be a JSON object"));
        };
        let model = match body.get("model") {
            Some(Value::String(id)) if !id.trim().is_empty() => models::find(id.trim())
                .ok_or_else(|| {
                    CodeError::validation(format!(
                        "Model \"{}\" not found or not available for chat",
                        id.trim()
                    ))
                })?,
            _ => {
                return Err(CodeError::validation(
                    "model is required (a model id string)",
                ));
            }
        };
        let messages = match body.get("messages") {
            Some(Value::Array(items)) if !items.is_empty() => items
                .iter()
                .enumerate()
                .map(|(index, item)| parse_message(index, item))
                .collect::<CodeResult<Vec<_>>>()?,
            _ => return Err(CodeError::validation("messages must be a non-empty array")),
        };
        if !messages.iter().any(|message| message.role == "user") {
            return Err(CodeError::validation(
                "messages must include at least one user message",
            ));
        }
        let stream = match body.get("stream") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(stream)) => *stream,
            Some(_) => return Err(CodeError::validation("stream must be a boolean")),
        };
        let include_usage = parse_include_usage(&body)?;
        // The schema deprecates `max_tokens` in favour of `max_completion_tokens`, so the
        // newer name wins when both are sent; each must be valid either way.
        let max_tokens = parse_token_cap(&body, "max_tokens")?;
        let max_completion_tokens = parse_token_cap(&body, "max_completion_tokens")?.or(max_tokens);
        let request = ChatRequest {
            model,
            messages,
            stream,
            include_usage,
            max_completion_tokens,
        };
        if !model.supports_vision && request.image_count() > 0 {
            return Err(CodeError::validation(format!(
                "Model \"{}\" does not accept images; choose a model with supports_vision",
                model.id
            )));
        }
        let prompt_tokens = request.prompt_tokens();
        if prompt_tokens > model.context_length_tokens {
            return Err(CodeError::validation(format!(
                "The messages are {prompt_tokens} tokens; model \"{}\" accepts at most {}",
                model.id, model.context_length_tokens
            )));
        }
        Ok(request)
    }

    /// Text of every part of every message, plus a fixed count per image.
    pub(crate) fn prompt_tokens(&self) -> u64 {
        self.messages
            .iter()
            .flat_map(|message| &message.parts)
            .map(|part| match part {
                Part::Text(text) => count_tokens(text),
                Part::ImageUrl(_) => TOKENS_PER_IMAGE,
            })
            .sum()
    }

    fn image_count(&self) -> usize {
        self.messages
            .iter()
            .flat_map(|message| &message.parts)
            .filter(|part| matches!(part, Part::ImageUrl(_)))
            .count()
    }

    fn last_user_message(&self) -> Option<&Message> {
        self.messages
            .iter()
            .rev()
            .find(|message| message.role == "user")
    }

    /// The question being answered: the text of the last user message.
    pub(crate) fn prompt_text(&self) -> String {
        self.last_user_message()
            .map(|message| {
                message
                    .parts
                    .iter()
                    .filter_map(|part| match part {
                        Part::Text(text) => Some(text.as_str()),
                        Part::ImageUrl(_) => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
    }

    /// The images the answer describes: those of the last user message.
    pub(crate) fn image_urls(&self) -> Vec<String> {
        self.last_user_message()
            .map(|message| {
                message
                    .parts
                    .iter()
                    .filter_map(|part| match part {
                        Part::ImageUrl(url) => Some(url.clone()),
                        Part::Text(_) => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn parse_token_cap(body: &Map<String, Value>, name: &str) -> CodeResult<Option<u64>> {
    match body.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => match value.as_u64() {
            Some(max) if max >= 1 => Ok(Some(max)),
            _ => Err(CodeError::validation(format!(
                "{name} must be a positive integer"
            ))),
        },
    }
}

/// `stream_options: {include_usage}`; read whether or not `stream` is set (a synchronous
/// answer always carries its usage, so the option changes nothing there).
fn parse_include_usage(body: &Map<String, Value>) -> CodeResult<bool> {
    let options = match body.get("stream_options") {
        None | Some(Value::Null) => return Ok(false),
        Some(Value::Object(options)) => options,
        Some(_) => {
            return Err(CodeError::validation(
                "stream_options must be an object such as {\"include_usage\": true}",
            ));
        }
    };
    match options.get("include_usage") {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(include)) => Ok(*include),
        Some(_) => Err(CodeError::validation(
            "stream_options.include_usage must be a boolean",
        )),
    }
}

fn parse_message(index: usize, item: &Value) -> CodeResult<Message> {
    let field = |name: &str| format!("messages[{index}].{name}");
    let Value::Object(message) = item else {
        return Err(CodeError::validation(format!(
            "messages[{index}] must be an object with role and content"
        )));
    };
    let role = match message.get("role").and_then(Value::as_str) {
        // The schema's newer name for the instructions role; the sandbox reads both alike.
        Some("system" | "developer") => "system",
        Some("user") => "user",
        Some("assistant") => "assistant",
        _ => {
            return Err(CodeError::validation(format!(
                "{} must be system, developer, user or assistant",
                field("role")
            )));
        }
    };
    let parts = match message.get("content") {
        // An assistant turn may carry no content (industry-standard schema).
        None | Some(Value::Null) if role == "assistant" => Vec::new(),
        Some(Value::String(text)) => vec![Part::Text(text.clone())],
        Some(Value::Array(parts)) => parts
            .iter()
            .enumerate()
            .map(|(part_index, part)| parse_part(&field(&format!("content[{part_index}]")), part))
            .collect::<CodeResult<Vec<_>>>()?,
        _ => {
            return Err(CodeError::validation(format!(
                "{} must be a string or an array of text and image_url parts",
                field("content")
            )));
        }
    };
    Ok(Message { role, parts })
}

fn parse_part(field: &str, part: &Value) -> CodeResult<Part> {
    match part.get("type").and_then(Value::as_str) {
        Some("text") => match part.get("text") {
            Some(Value::String(text)) => Ok(Part::Text(text.clone())),
            _ => Err(CodeError::validation(format!(
                "{field}.text must be a string"
            ))),
        },
        Some("image_url") => {
            // `{url}` as the schema says; a bare string is accepted too.
            let url = match part.get("image_url") {
                Some(Value::String(url)) => Some(url.as_str()),
                Some(Value::Object(image)) => image.get("url").and_then(Value::as_str),
                _ => None,
            }
            .map(str::trim)
            .filter(|url| !url.is_empty());
            url.map(|url| Part::ImageUrl(url.to_owned()))
                .ok_or_else(|| {
                    CodeError::validation(format!("{field}.image_url.url must be a URL string"))
                })
        }
        _ => Err(CodeError::validation(format!(
            "{field}.type must be text or image_url"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(value: Value) -> CodeResult<ChatRequest> {
        ChatRequest::parse(value.to_string().as_bytes())
    }

    #[test]
    fn content_may_be_a_string_or_parts() {
        let request = parse(json!({
            "model": "sandbox-coder",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
                ]}
            ]
        }))
        .expect("valid");
        assert_eq!(request.prompt_text(), "What is this?");
        assert_eq!(request.image_urls(), vec!["https://example.com/a.png"]);
        // "Be brief." = 3, "What is this?" = 4, one image = 85
        assert_eq!(request.prompt_tokens(), 3 + 4 + TOKENS_PER_IMAGE);
        assert!(!request.stream);
        assert!(!request.include_usage);
    }

    #[test]
    fn the_newer_schema_names_are_read() {
        let request = parse(json!({
            "model": "sandbox-coder",
            "messages": [
                {"role": "developer", "content": "Be brief."},
                {"role": "user", "content": "Hi"}
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
            "max_tokens": 50,
            "max_completion_tokens": 7
        }))
        .expect("valid");
        assert_eq!(request.messages[0].role, "system");
        assert!(request.include_usage);
        assert_eq!(
            request.max_completion_tokens,
            Some(7),
            "the newer name wins"
        );
        let older = parse(json!({
            "model": "sandbox-coder",
            "messages": [{"role": "user", "content": "Hi"}],
            "max_tokens": 50
        }))
        .expect("valid");
        assert_eq!(older.max_completion_tokens, Some(50));
    }

    #[test]
    fn refusals_name_the_problem() {
        let message = |value: Value| parse(value).expect_err("refused").message;
        assert!(message(json!({"model": "nope", "messages": []})).contains("\"nope\""));
        assert!(message(json!({"model": "sandbox-coder"})).contains("messages"));
        assert!(
            message(
                json!({"model": "sandbox-coder", "messages": [{"role": "robot", "content": "x"}]})
            )
            .contains("messages[0].role")
        );
        assert!(
            message(json!({"model": "sandbox-coder", "messages": [{"role": "user", "content": "x"}], "max_tokens": 0}))
                .contains("max_tokens")
        );
        assert!(
            message(json!({"model": "sandbox-coder", "messages": [{"role": "user", "content": "x"}], "max_completion_tokens": -1}))
                .contains("max_completion_tokens")
        );
        assert!(
            message(json!({"model": "sandbox-coder", "messages": [{"role": "user", "content": "x"}], "stream_options": {"include_usage": "yes"}}))
                .contains("include_usage")
        );
        assert!(
            message(
                json!({"model": "sandbox-coder-mini", "messages": [{"role": "user", "content": [
                    {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
                ]}]})
            )
            .contains("does not accept images")
        );
    }
}
