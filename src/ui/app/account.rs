//! The shell's side of Settings and the account: saving preferences, sending a profile's
//! connection test with its stored key, clearing the cache, and the low-balance warning
//! when a new balance arrives.

use super::StudioApp;
use crate::api::{ApiError, Credits};
use crate::engine::{Command, StorageCommand};
use crate::ui::account;
use crate::ui::settings::{SettingsAction, SettingsSnapshot};
use crate::ui::toasts::ToastKind;

impl StudioApp {
    /// A balance arrived: keep it, and warn once when it has just dropped below the
    /// threshold (the status bar's badge stays while it is low).
    pub(super) fn credits_updated(&mut self, result: Result<Credits, ApiError>) {
        self.model.credits.set(result.map_err(|e| e.to_string()));
        let spendable = self
            .model
            .credits
            .value
            .as_ref()
            .and_then(Credits::spendable);
        let threshold = self.session.settings().low_balance_threshold_credits;
        if self.low_balance.observe(spendable, threshold)
            && let Some(balance) = spendable
        {
            self.toasts.push(
                ToastKind::Warning,
                account::low_balance_text(balance, threshold),
            );
        }
    }

    /// Settings was opened: fresh figures for its cache and log.
    pub(super) fn settings_shown(&mut self) {
        self.settings_snapshot = SettingsSnapshot::of(&self.session);
        for command in self.settings_form.on_shown(&self.settings_snapshot) {
            // Without a running engine these cannot be answered; the rows say so.
            if let Err(error) = self.session.send(command) {
                tracing::warn!("settings could not ask the engine: {error}");
                self.settings_form.cache.busy = false;
                self.settings_form.log.loading = false;
            }
        }
    }

    pub(super) fn clear_cache(&mut self) {
        self.settings_form.cache.busy = true;
        self.send(Command::Storage(StorageCommand::ClearCache));
    }

    pub(super) fn apply_settings(&mut self, action: SettingsAction) {
        match action {
            SettingsAction::TestConnection { profile_id } => {
                let request_id = self.settings_form.start_test(&profile_id);
                let sent = self
                    .session
                    .test_connection_command(request_id, &profile_id)
                    .and_then(|command| self.session.send(command));
                if let Err(message) = sent {
                    self.settings_form.test_not_started(&profile_id, message);
                }
            }
            SettingsAction::SetDefaults { kind_key, defaults } => {
                self.session.update_preferences(|settings| {
                    if defaults.is_empty() {
                        settings.generation_defaults.remove(&kind_key);
                    } else {
                        settings.generation_defaults.insert(kind_key, defaults);
                    }
                });
                self.create.form.kind_defaults =
                    self.session.settings().generation_defaults.clone();
                self.settings_snapshot = SettingsSnapshot::of(&self.session);
            }
            SettingsAction::SetLowBalanceThreshold(threshold) => {
                self.session.update_preferences(|settings| {
                    settings.low_balance_threshold_credits = threshold;
                });
                self.settings_snapshot = SettingsSnapshot::of(&self.session);
                // Judge the current balance against the new threshold (no toast: the
                // person is looking at the figure they just typed).
                let spendable = self
                    .model
                    .credits
                    .value
                    .as_ref()
                    .and_then(Credits::spendable);
                self.low_balance.observe(spendable, threshold);
            }
            SettingsAction::SetThumbnailCacheMb(mb) => self.set_thumbnail_cache_mb(mb),
            SettingsAction::CacheCleared => {
                if let Some(pipeline) = &self.thumbnails {
                    pipeline.rescan_cache();
                }
            }
        }
    }
}
