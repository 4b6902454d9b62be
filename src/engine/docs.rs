//! Project documents: list, open, create, update, share and delete, each answered once by
//! a `DocsEvent` carrying the command's `op_id` so the Docs view can match it.
//!
//! Deleting has no undo on the service (a soft delete with no restore route), so the view
//! sends `Delete` only once its Undo window has passed. A delete may therefore arrive just
//! before the studio quits: the engine waits for deletes still in flight (at most
//! [`DELETES_ON_SHUTDOWN_WAIT_SECS`]) before it stops, so a delete the person did not undo
//! is not lost on the way out.

use super::guard::spawn_reported;
use super::protocol::Event;
use super::runtime::Ctx;
use crate::api::{ApiError, Doc, DocMeta, DocPage, DocUpdate, NewDoc};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::task::JoinHandle;

/// Longest the engine waits at shutdown for deletes already sent.
pub const DELETES_ON_SHUTDOWN_WAIT_SECS: u64 = 5;

/// A docs request from the view.
#[derive(Clone, Debug, PartialEq)]
pub enum DocsCommand {
    /// GET /docs: one page for a project (`None`: every project the caller can read).
    List {
        op_id: u64,
        project_id: Option<String>,
        page: u32,
        limit: u32,
    },
    /// GET /docs/:id: metadata and content.
    Open { op_id: u64, doc_id: String },
    /// POST /docs.
    Create { op_id: u64, body: NewDoc },
    /// PUT /docs/:id.
    Update {
        op_id: u64,
        doc_id: String,
        fields: DocUpdate,
    },
    /// PATCH /docs/:id/share: set (never toggle) sharing.
    Share {
        op_id: u64,
        doc_id: String,
        shared: bool,
        editable: bool,
    },
    /// DELETE /docs/:id. Irreversible: send only once Undo is no longer offered.
    Delete { op_id: u64, doc_id: String },
}

/// The answer to one [`DocsCommand`], with its `op_id`.
#[derive(Clone, Debug, PartialEq)]
pub enum DocsEvent {
    Listed {
        op_id: u64,
        project_id: Option<String>,
        page: u32,
        result: Result<DocPage, ApiError>,
    },
    Opened {
        op_id: u64,
        doc_id: String,
        result: Result<Doc, ApiError>,
    },
    /// Create answers with metadata only.
    Created {
        op_id: u64,
        result: Result<DocMeta, ApiError>,
    },
    /// The document as the service stored it.
    Updated {
        op_id: u64,
        doc_id: String,
        result: Result<Doc, ApiError>,
    },
    Shared {
        op_id: u64,
        doc_id: String,
        result: Result<DocMeta, ApiError>,
    },
    Deleted {
        op_id: u64,
        doc_id: String,
        result: Result<(), ApiError>,
    },
}

impl DocsEvent {
    pub fn op_id(&self) -> u64 {
        match self {
            DocsEvent::Listed { op_id, .. }
            | DocsEvent::Opened { op_id, .. }
            | DocsEvent::Created { op_id, .. }
            | DocsEvent::Updated { op_id, .. }
            | DocsEvent::Shared { op_id, .. }
            | DocsEvent::Deleted { op_id, .. } => *op_id,
        }
    }

    /// The outcome of a read (list, open), for reachability; `None` for changes.
    pub fn read_outcome(&self) -> Option<Result<(), &ApiError>> {
        match self {
            DocsEvent::Listed { result, .. } => Some(result.as_ref().map(|_| ())),
            DocsEvent::Opened { result, .. } => Some(result.as_ref().map(|_| ())),
            _ => None,
        }
    }
}

/// The engine's docs worker: starts one task per command and remembers the deletes in
/// flight so shutdown can wait for them.
pub(crate) struct Docs {
    ctx: Arc<Ctx>,
    deletes: Mutex<Vec<JoinHandle<()>>>,
}

impl Docs {
    pub fn new(ctx: Arc<Ctx>) -> Self {
        Docs {
            ctx,
            deletes: Mutex::new(Vec::new()),
        }
    }

    /// Start the work for one command (never blocks the engine loop).
    pub fn handle(&self, command: DocsCommand) {
        let ctx = self.ctx.clone();
        let emit = |ctx: Arc<Ctx>, event: DocsEvent| async move {
            ctx.emit(Event::Docs(event)).await;
        };
        match command {
            DocsCommand::List {
                op_id,
                project_id,
                page,
                limit,
            } => {
                spawn_reported(&self.ctx, "loading the documents", async move {
                    let result = ctx
                        .client
                        .list_docs(project_id.as_deref(), page, limit)
                        .await;
                    if let Err(e) = &result {
                        tracing::warn!("document list failed: {e}");
                    }
                    let event = DocsEvent::Listed {
                        op_id,
                        project_id,
                        page,
                        result,
                    };
                    emit(ctx, event).await;
                });
            }
            DocsCommand::Open { op_id, doc_id } => {
                spawn_reported(&self.ctx, "opening a document", async move {
                    let result = ctx.client.get_doc(&doc_id).await;
                    let event = DocsEvent::Opened {
                        op_id,
                        doc_id,
                        result,
                    };
                    emit(ctx, event).await;
                });
            }
            DocsCommand::Create { op_id, body } => {
                spawn_reported(&self.ctx, "creating a document", async move {
                    let result = ctx.client.create_doc(&body).await;
                    emit(ctx, DocsEvent::Created { op_id, result }).await;
                });
            }
            DocsCommand::Update {
                op_id,
                doc_id,
                fields,
            } => {
                spawn_reported(&self.ctx, "saving a document", async move {
                    let result = ctx.client.update_doc(&doc_id, &fields).await;
                    let event = DocsEvent::Updated {
                        op_id,
                        doc_id,
                        result,
                    };
                    emit(ctx, event).await;
                });
            }
            DocsCommand::Share {
                op_id,
                doc_id,
                shared,
                editable,
            } => {
                spawn_reported(&self.ctx, "sharing a document", async move {
                    let result = ctx.client.share_doc(&doc_id, shared, editable).await;
                    let event = DocsEvent::Shared {
                        op_id,
                        doc_id,
                        result,
                    };
                    emit(ctx, event).await;
                });
            }
            DocsCommand::Delete { op_id, doc_id } => {
                let task = spawn_reported(&self.ctx, "deleting a document", async move {
                    let result = ctx.client.delete_doc(&doc_id).await;
                    if let Err(e) = &result {
                        tracing::warn!("document delete failed: {e}");
                    }
                    let event = DocsEvent::Deleted {
                        op_id,
                        doc_id,
                        result,
                    };
                    emit(ctx, event).await;
                });
                if let Ok(mut deletes) = self.deletes.lock() {
                    deletes.retain(|task| !task.is_finished());
                    deletes.push(task);
                }
            }
        }
    }

    /// At shutdown: let deletes already sent finish (bounded), so none is cut off.
    pub async fn finish_deletes(&self) {
        let tasks: Vec<JoinHandle<()>> = match self.deletes.lock() {
            Ok(mut deletes) => deletes.drain(..).collect(),
            Err(_) => return,
        };
        if tasks.is_empty() {
            return;
        }
        let wait = Duration::from_secs(DELETES_ON_SHUTDOWN_WAIT_SECS);
        if tokio::time::timeout(wait, futures_util::future::join_all(tasks))
            .await
            .is_err()
        {
            tracing::warn!("a document delete was still running at shutdown");
        }
    }
}
