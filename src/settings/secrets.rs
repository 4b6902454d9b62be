//! API keys: kept in the OS keychain where one answers, otherwise in a file only the user
//! can read (0600). Keys never appear in logs, Debug output or any other file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

const KEYCHAIN_SERVICE: &str = "framewright";
/// A keychain that does not answer within this time is treated as absent (headless
/// sessions without a D-Bus secret service can otherwise hang).
const KEYCHAIN_PROBE_TIMEOUT_SECS: u64 = 3;

#[derive(Debug, thiserror::Error)]
pub enum SecretStoreError {
    #[error("the OS keychain refused the key: {0}")]
    Keychain(String),
    #[error("could not write the key file {path}: {message}")]
    File { path: String, message: String },
}

pub enum SecretStore {
    Keychain,
    File(PathBuf),
}

impl std::fmt::Debug for SecretStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.description())
    }
}

impl SecretStore {
    /// The OS keychain when `try_keychain` and it answers, else `fallback_file`.
    pub fn open(try_keychain: bool, fallback_file: &Path) -> Self {
        if try_keychain && keychain_available() {
            SecretStore::Keychain
        } else {
            SecretStore::File(fallback_file.to_path_buf())
        }
    }

    pub fn description(&self) -> String {
        match self {
            SecretStore::Keychain => "the OS keychain".to_owned(),
            SecretStore::File(path) => format!("{} (readable only by you)", path.display()),
        }
    }

    pub fn get(&self, profile_id: &str) -> Option<String> {
        match self {
            SecretStore::Keychain => {
                let id = profile_id.to_owned();
                on_keychain_thread(move || {
                    keyring::Entry::new(KEYCHAIN_SERVICE, &id).and_then(|e| e.get_password())
                })
                .and_then(Result::ok)
            }
            SecretStore::File(path) => read_file(path).remove(profile_id),
        }
    }

    pub fn set(&self, profile_id: &str, api_key: &str) -> Result<(), SecretStoreError> {
        match self {
            SecretStore::Keychain => {
                let (id, key) = (profile_id.to_owned(), api_key.to_owned());
                on_keychain_thread(move || {
                    keyring::Entry::new(KEYCHAIN_SERVICE, &id).and_then(|e| e.set_password(&key))
                })
                .ok_or_else(|| SecretStoreError::Keychain("no answer".into()))?
                .map_err(|err| SecretStoreError::Keychain(err.to_string()))
            }
            SecretStore::File(path) => {
                let mut keys = read_file(path);
                keys.insert(profile_id.to_owned(), api_key.to_owned());
                write_file(path, &keys)
            }
        }
    }

    pub fn remove(&self, profile_id: &str) -> Result<(), SecretStoreError> {
        match self {
            SecretStore::Keychain => {
                let id = profile_id.to_owned();
                match on_keychain_thread(move || {
                    keyring::Entry::new(KEYCHAIN_SERVICE, &id).and_then(|e| e.delete_credential())
                }) {
                    Some(Ok(())) | Some(Err(keyring::Error::NoEntry)) => Ok(()),
                    Some(Err(err)) => Err(SecretStoreError::Keychain(err.to_string())),
                    None => Err(SecretStoreError::Keychain("no answer".into())),
                }
            }
            SecretStore::File(path) => {
                let mut keys = read_file(path);
                if keys.remove(profile_id).is_some() {
                    write_file(path, &keys)?;
                }
                Ok(())
            }
        }
    }
}

/// Shows enough of a key to recognise it, never the whole key.
pub fn mask_api_key(api_key: &str) -> String {
    let chars: Vec<char> = api_key.chars().collect();
    if chars.len() <= 8 {
        return "•".repeat(chars.len().max(4));
    }
    let head: String = chars[..4].iter().collect();
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("{head}…{tail}")
}

fn keychain_available() -> bool {
    matches!(
        on_keychain_thread(|| {
            keyring::Entry::new(KEYCHAIN_SERVICE, "__probe__").and_then(|e| e.get_password())
        }),
        Some(Ok(_)) | Some(Err(keyring::Error::NoEntry))
    )
}

/// The secret-service backend talks D-Bus through tokio: run each call on its own thread
/// with a small runtime entered, and give up after a timeout instead of hanging the UI.
fn on_keychain_thread<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = mpsc::sync_channel(1);
    let spawned = std::thread::Builder::new()
        .name("keychain".into())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build();
            let Ok(runtime) = runtime else { return };
            let _entered = runtime.enter();
            let _ = tx.send(work());
        });
    if spawned.is_err() {
        return None;
    }
    rx.recv_timeout(Duration::from_secs(KEYCHAIN_PROBE_TIMEOUT_SECS))
        .ok()
}

fn read_file(path: &Path) -> BTreeMap<String, String> {
    std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

fn write_file(path: &Path, keys: &BTreeMap<String, String>) -> Result<(), SecretStoreError> {
    let to_error = |message: String| SecretStoreError::File {
        path: path.display().to_string(),
        message,
    };
    let bytes = serde_json::to_vec_pretty(keys).map_err(|e| to_error(e.to_string()))?;
    super::write_atomically(path, &bytes, Some(0o600)).map_err(|e| to_error(e.to_string()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| to_error(e.to_string()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_store_round_trips_and_is_private() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("secrets.json");
        let store = SecretStore::open(false, &path);
        store
            .set("studio", "fw_live_0123456789abcdef")
            .expect("set");
        assert_eq!(
            store.get("studio").as_deref(),
            Some("fw_live_0123456789abcdef")
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(
                mode & 0o777,
                0o600,
                "key file must be readable only by its owner"
            );
        }
        store.remove("studio").expect("remove");
        assert_eq!(store.get("studio"), None);
    }

    #[test]
    fn masking_never_reveals_the_middle_of_a_key() {
        let masked = mask_api_key("fw_live_0123456789abcdef");
        assert_eq!(masked, "fw_l…cdef");
        assert!(!masked.contains("0123456789"));
        assert_eq!(mask_api_key("short"), "•••••");
    }

    #[test]
    fn debug_output_names_the_store_not_keys() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = SecretStore::open(false, &dir.path().join("secrets.json"));
        store.set("p", "secret-value-123456").expect("set");
        assert!(!format!("{store:?}").contains("secret-value"));
    }
}
