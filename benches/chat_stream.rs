//! Streaming overhead of the assistant chat: from the moment a reply chunk leaves the
//! sandbox to the moment the engine's `Delta` event for it is in the consumer's hands.
//!
//! Method. The sandbox (in this process, real HTTP on loopback) has no hook that stamps
//! its chunks, so a byte-forwarding TCP relay sits between the engine and the sandbox and
//! stamps every read from the sandbox's socket the instant it returns, before forwarding
//! it. Afterwards each `data:` line with text is located in the relayed bytes and given the
//! stamp of the read that completed it: that is when the chunk had left the sandbox. The
//! consumer is this thread, woken by the engine's repaint hook (as egui is) and draining
//! with `try_recv`; each `Delta` is stamped as it is taken. Latency = consumer stamp −
//! relay stamp. It includes the relay's own write (a loopback `write`, so the figure is a
//! slight over-estimate), the kernel, hyper/reqwest, the SSE decoder, the engine task and
//! the event channel. Every delta is checked to be the text of its chunk, in order.
//!
//! Two paces: the sandbox at speed 1 (a realistic few tokens per chunk, one chunk every
//! tens of ms) and at speed 1000 (chunks back to back, so many arrive in one read).
//!
//! `cargo bench --bench chat_stream`

use framewright::api::code_assistant::{ChatMessage, ChatRequest, ChatRole};
use framewright::engine::chat::{ChatCommand, ChatEvent, StreamEnd};
use framewright::engine::conversations::{MessageState, StoredMessage, now_rfc3339};
use framewright::engine::{Command, EngineConfig, EngineHandle, Event, start};
use framewright::sandbox::{SandboxConfig, start as start_sandbox};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Replies per pace.
const REPLIES: usize = 12;
const WAIT_LIMIT: Duration = Duration::from_secs(120);

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// What the relay read from the sandbox on one connection: each read's bytes and when the
/// read returned.
type ConnectionLog = Arc<Mutex<Vec<(Instant, Vec<u8>)>>>;

#[derive(Default)]
struct RelayLog {
    connections: Mutex<Vec<ConnectionLog>>,
}

impl RelayLog {
    fn new_connection(&self) -> ConnectionLog {
        let log = ConnectionLog::default();
        if let Ok(mut all) = self.connections.lock() {
            all.push(log.clone());
        }
        log
    }

    /// Every text chunk relayed so far (text, when its line had fully left the sandbox),
    /// in time order; the logs are emptied.
    fn take_text_chunks(&self) -> Vec<(String, Instant)> {
        let mut found = Vec::new();
        let Ok(all) = self.connections.lock() else {
            return found;
        };
        for log in all.iter() {
            let Ok(mut reads) = log.lock() else { continue };
            let mut bytes = Vec::new();
            let mut read_ends = Vec::new(); // (end offset, stamp)
            for (stamp, piece) in reads.drain(..) {
                bytes.extend_from_slice(&piece);
                read_ends.push((bytes.len(), stamp));
            }
            let mut at = 0;
            while let Some(start) = find(&bytes[at..], b"data: ").map(|i| i + at) {
                let Some(end) = find(&bytes[start..], b"\n").map(|i| i + start) else {
                    break;
                };
                at = end;
                let line = &bytes[start + b"data: ".len()..end];
                let Ok(value) = serde_json::from_slice::<serde_json::Value>(line) else {
                    continue;
                };
                let text = value["choices"][0]["delta"]["content"]
                    .as_str()
                    .unwrap_or_default();
                if text.is_empty() {
                    continue;
                }
                let stamp = read_ends
                    .iter()
                    .find(|(read_end, _)| *read_end > end)
                    .map(|(_, stamp)| *stamp);
                if let Some(stamp) = stamp {
                    found.push((text.to_owned(), stamp));
                }
            }
        }
        found.sort_by_key(|(_, stamp)| *stamp);
        found
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Forward `127.0.0.1:<returned port>` to `target_port`, logging sandbox → engine reads.
async fn relay(target_port: u16, log: Arc<RelayLog>) -> BenchResult<u16> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let log = log.new_connection();
            tokio::spawn(async move {
                let Ok(server) = tokio::net::TcpStream::connect(("127.0.0.1", target_port)).await
                else {
                    return;
                };
                let _ = client.set_nodelay(true);
                let _ = server.set_nodelay(true);
                let (mut client_read, mut client_write) = client.into_split();
                let (mut server_read, mut server_write) = server.into_split();
                let upstream = tokio::io::copy(&mut client_read, &mut server_write);
                let downstream = async move {
                    let mut buffer = vec![0u8; 64 * 1024];
                    loop {
                        let n = match server_read.read(&mut buffer).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => n,
                        };
                        let stamp = Instant::now();
                        if let Ok(mut reads) = log.lock() {
                            reads.push((stamp, buffer[..n].to_vec()));
                        }
                        if client_write.write_all(&buffer[..n]).await.is_err() {
                            break;
                        }
                    }
                };
                tokio::select! {
                    _ = upstream => {},
                    () = downstream => {},
                }
            });
        }
    });
    Ok(port)
}

/// Events from the engine, each stamped as the consumer took it.
fn next_event(engine: &mut EngineHandle, deadline: Instant) -> BenchResult<(Event, Instant)> {
    loop {
        if let Some(event) = engine.try_recv() {
            return Ok((event, Instant::now()));
        }
        if Instant::now() > deadline {
            return Err("timed out waiting for the engine".into());
        }
        // Woken by the repaint hook, like the UI thread.
        std::thread::park_timeout(Duration::from_millis(50));
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn run_pace(speed: f64) -> BenchResult<Vec<f64>> {
    let dir = tempfile::tempdir()?;
    let mut config = SandboxConfig::new(dir.path().join("sandbox"));
    config.speed = speed;
    let sandbox = start_sandbox(config)?;
    let proxy_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("bench-relay")
        .enable_all()
        .build()?;
    let log = Arc::new(RelayLog::default());
    let relay_port = proxy_runtime.block_on(relay(sandbox.port(), log.clone()))?;
    let base_url = sandbox
        .base_url()
        .replace(&format!(":{}/", sandbox.port()), &format!(":{relay_port}/"));

    let consumer = std::thread::current();
    let mut engine = start(EngineConfig {
        base_url,
        api_key: sandbox.api_key().to_owned(),
        journal_path: dir.path().join("journal.sqlite3"),
        service_id: "bench".into(),
        cache_dir: dir.path().join("cache"),
        repaint: Arc::new(move || consumer.unpark()),
    })?;
    let deadline = Instant::now() + WAIT_LIMIT;
    engine.send(Command::Chat(ChatCommand::RefreshModels))?;
    let model_id = loop {
        if let (Event::Chat(ChatEvent::Models(models)), _) = next_event(&mut engine, deadline)? {
            let models = models?;
            break models
                .first()
                .ok_or("the sandbox lists no models")?
                .id
                .clone();
        }
    };
    engine.send(Command::Chat(ChatCommand::CreateConversation {
        title: "bench".into(),
        model_id: model_id.clone(),
    }))?;
    let conversation_id = loop {
        if let (Event::Chat(ChatEvent::ConversationCreated(created)), _) =
            next_event(&mut engine, deadline)?
        {
            break created?.id;
        }
    };

    let mut latencies_ms = Vec::new();
    for reply in 0..REPLIES {
        log.take_text_chunks(); // forget earlier traffic
        let question = format!("Explain Rust iterators with an example, part {reply}");
        engine.send(Command::Chat(ChatCommand::Send {
            conversation_id,
            stream_id: reply as u64,
            user_message: StoredMessage {
                role: ChatRole::User,
                text: question.clone(),
                attachments: Vec::new(),
                model_id: model_id.clone(),
                cost_credits: None,
                state: MessageState::Complete,
                error: None,
                created_at: now_rfc3339(),
            },
            request: ChatRequest {
                model: model_id.clone(),
                messages: vec![ChatMessage::text(ChatRole::User, question)],
                max_tokens: None,
            },
        }))?;
        let mut deltas = Vec::new();
        loop {
            match next_event(&mut engine, deadline)? {
                (Event::Chat(ChatEvent::Delta { text, .. }), taken) => deltas.push((text, taken)),
                (Event::Chat(ChatEvent::Ended { end, .. }), _) => {
                    if !matches!(end, StreamEnd::Finished { .. }) {
                        return Err(format!("reply {reply} ended as {end:?}").into());
                    }
                    break;
                }
                _ => {}
            }
        }
        let chunks = log.take_text_chunks();
        if chunks.len() != deltas.len() {
            return Err(format!(
                "reply {reply}: {} chunks relayed but {} deltas received",
                chunks.len(),
                deltas.len()
            )
            .into());
        }
        for ((chunk_text, sent), (delta_text, taken)) in chunks.iter().zip(&deltas) {
            if chunk_text != delta_text {
                return Err(format!("reply {reply}: {delta_text:?} ≠ {chunk_text:?}").into());
            }
            latencies_ms.push(taken.duration_since(*sent).as_secs_f64() * 1000.0);
        }
    }
    drop(engine);
    drop(sandbox);
    proxy_runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(latencies_ms)
}

fn main() -> BenchResult<()> {
    println!("chat_stream: chunk leaves the sandbox → Delta taken by the consumer");
    println!("| Sandbox pace | deltas | median | p95 | max |");
    println!("|---|---|---|---|---|");
    for (label, speed) in [("speed 1 (realistic)", 1.0), ("speed 1000", 1000.0)] {
        let mut latencies = run_pace(speed)?;
        latencies.sort_by(f64::total_cmp);
        if latencies.is_empty() {
            return Err("no deltas measured".into());
        }
        println!(
            "| {label} | {} | {:.3} ms | {:.3} ms | {:.3} ms |",
            latencies.len(),
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.95),
            latencies[latencies.len() - 1],
        );
    }
    Ok(())
}
