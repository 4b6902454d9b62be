//! The coding-assistant API (`{base_url}/api/kolbo/v1`, document 3): models, balance, file
//! uploads and chat completions, synchronous and streamed. No egui.

pub mod client;
pub mod errors;
pub mod stream;
pub mod types;

pub use client::{CODE_ASSISTANT_PATH, CodeAssistantClient};
pub use errors::explain;
pub use stream::{
    ChatChunk, ChatStream, StreamData, StreamItem, collect_chat_stream, decode_chat_stream,
    parse_data,
};
pub use types::{
    ChatCompletion, ChatMessage, ChatRequest, ChatRole, ChatUsage, CodeBalance, CodeModel,
    ContentPart, UploadedFile,
};
