//! The Settings view: service profiles (the local sandbox and remote services), switching
//! between them, adding/editing/removing remote profiles and testing their connection;
//! the account's credits and low-balance warning; Create's defaults per type; where keys
//! and data live (with the cache's size and Clear) and the log. Each section is its own
//! module; `settings_ui` lists them in order.

pub mod account;
pub mod defaults;
pub mod storage;

use crate::engine::Event;
use crate::session::{Session, SessionError};
use crate::settings::{AppPaths, GenerationDefaults, ProfileKind, ServiceProfile};
use crate::ui::model::{Action, Confirm, Model};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{RichText, Stroke, TextEdit, Ui};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// What Settings asks the shell to do (it owns the session and the settings file).
#[derive(Clone, Debug, PartialEq)]
pub enum SettingsAction {
    /// Test this profile's connection (the shell adds the stored key).
    TestConnection {
        profile_id: String,
    },
    /// Save Create's defaults for one type (`kind_key`: see `compose::form::defaults_key`).
    SetDefaults {
        kind_key: String,
        defaults: GenerationDefaults,
    },
    SetLowBalanceThreshold(f64),
    /// The thumbnail cache's size limit, in MB (validated at the field).
    SetThumbnailCacheMb(u32),
    /// The cache folder was cleared: the thumbnail cache reads its folder again.
    CacheCleared,
}

/// What the view shows about the session; rebuilt after every profile change so layout
/// never touches the secret store.
#[derive(Clone, Debug)]
pub struct SettingsSnapshot {
    pub profiles: Vec<ServiceProfile>,
    pub active_profile_id: String,
    pub masked_keys: HashMap<String, String>,
    pub secret_store: String,
    pub service_label: String,
    pub connection_error: Option<String>,
    pub config_dir: String,
    pub data_dir: String,
    pub cache_dir: String,
    pub log_dir: String,
    pub paths: AppPaths,
    pub log_file: PathBuf,
    pub generation_defaults: BTreeMap<String, GenerationDefaults>,
    pub low_balance_threshold_credits: f64,
    pub thumbnail_cache_mb: u32,
    pub appearance: crate::settings::Appearance,
}

impl SettingsSnapshot {
    pub fn of(session: &Session) -> Self {
        let settings = session.settings();
        let masked_keys = settings
            .profiles
            .iter()
            .filter_map(|p| session.masked_api_key(&p.id).map(|k| (p.id.clone(), k)))
            .collect();
        let paths = session.paths();
        Self {
            profiles: settings.profiles.clone(),
            active_profile_id: settings.active_profile_id.clone(),
            masked_keys,
            secret_store: session.secret_store_description(),
            service_label: session.service_label(),
            connection_error: session.connection_error().map(str::to_owned),
            config_dir: paths.config_dir.display().to_string(),
            data_dir: paths.data_dir.display().to_string(),
            cache_dir: paths.cache_dir.display().to_string(),
            log_dir: paths.log_dir.display().to_string(),
            log_file: paths.log_file(),
            paths: paths.clone(),
            generation_defaults: settings.generation_defaults.clone(),
            low_balance_threshold_credits: settings.low_balance_threshold_credits,
            thumbnail_cache_mb: settings.thumbnail_cache_mb,
            appearance: settings.appearance,
        }
    }
}

/// Which input a `SessionError` is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfileField {
    Name,
    BaseUrl,
    ApiKey,
    General,
}

pub fn error_field(error: &SessionError) -> ProfileField {
    match error {
        SessionError::InvalidBaseUrl(_) => ProfileField::BaseUrl,
        SessionError::EmptyApiKey => ProfileField::ApiKey,
        SessionError::EmptyName => ProfileField::Name,
        _ => ProfileField::General,
    }
}

/// A profile form (adding, or editing an existing remote profile).
#[derive(Clone, Debug, Default)]
pub struct ProfileForm {
    pub name: String,
    pub base_url: String,
    pub api_key: String,
    pub error: Option<(ProfileField, String)>,
}

impl ProfileForm {
    pub fn set_error(&mut self, error: &SessionError) {
        self.error = Some((error_field(error), error.to_string()));
    }
    fn error_for(&self, field: ProfileField) -> Option<&str> {
        self.error
            .as_ref()
            .filter(|(f, _)| *f == field)
            .map(|(_, m)| m.as_str())
    }
}

#[derive(Default)]
pub struct SettingsForm {
    pub add: ProfileForm,
    pub add_open: bool,
    /// Profile id being edited, with its form.
    pub editing: Option<(String, ProfileForm)>,
    /// Errors from activate/remove, per profile id.
    pub profile_errors: HashMap<String, String>,
    pub saved_note: Option<String>,
    /// "Test connection" per profile id.
    pub tests: HashMap<String, account::TestState>,
    pub next_request_id: u64,
    pub cache: storage::CacheState,
    pub log: storage::LogState,
    /// The low-balance threshold as typed (`None`: show the saved value).
    pub threshold_input: Option<String>,
    pub threshold_error: Option<String>,
    /// The thumbnail cache limit as typed (`None`: show the saved value).
    pub cache_limit_input: Option<String>,
    pub cache_limit_error: Option<String>,
}

impl SettingsForm {
    /// Settings' own engine answers (connection tests, cache, log); the shell routes only
    /// these here.
    pub fn handle_event(&mut self, event: Event) -> Vec<Action> {
        match event {
            Event::Account(event) => {
                self.handle_account_event(event);
                Vec::new()
            }
            Event::Storage(event) => self.handle_storage_event(event),
            other => {
                tracing::debug!("settings ignored an event: {other:?}");
                Vec::new()
            }
        }
    }
}

pub fn settings_ui(
    ui: &mut Ui,
    snapshot: &SettingsSnapshot,
    form: &mut SettingsForm,
    model: &Model,
) -> Vec<Action> {
    let mut actions = Vec::new();
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            // Keep clear of the scrollbar on the right.
            let usable = ui.available_width() - tokens::SCROLLBAR_ALLOWANCE;
            let width = usable.min(tokens::FORM_MAX_WIDTH);
            let side = ((usable - width) / 2.0).max(0.0);
            ui.horizontal_top(|ui| {
                ui.add_space(side);
                ui.vertical(|ui| {
                    ui.set_width(width);
                    ui.add_space(tokens::SPACE_L);
                    ui.label(
                        RichText::new("Settings")
                            .size(tokens::TEXT_HEADING)
                            .strong()
                            .color(tokens::palette().text),
                    );
                    widgets::muted(ui, "Choose which Generation Service the studio talks to.");
                    ui.add_space(tokens::SPACE_M);
                    // The sections, top to bottom. Each is one call; add new ones here.
                    profiles_ui(ui, snapshot, form, &mut actions);
                    ui.add_space(tokens::SPACE_L);
                    account::account_ui(
                        ui,
                        model,
                        snapshot.low_balance_threshold_credits,
                        form,
                        &mut actions,
                    );
                    ui.add_space(tokens::SPACE_L);
                    section(ui, "Create defaults", "settings_defaults", |ui| {
                        defaults::defaults_ui(
                            ui,
                            model,
                            &snapshot.generation_defaults,
                            &mut actions,
                        )
                    });
                    crate::ui::settings_appearance::appearance_section_ui(
                        ui,
                        snapshot.appearance,
                        &mut actions,
                    );
                    ui.add_space(tokens::SPACE_L);
                    storage::storage_ui(ui, snapshot, form, &mut actions);
                    ui.add_space(tokens::SPACE_L);
                    storage::log_ui(ui, snapshot, form, &mut actions);
                    ui.add_space(tokens::SPACE_XL);
                });
            });
        });
    actions
}

/// A titled section that folds away (long ones, so Settings stays short at 1024×700).
pub fn section(ui: &mut Ui, title: &str, id: &str, body: impl FnOnce(&mut Ui)) {
    egui::CollapsingHeader::new(RichText::new(title).strong().color(tokens::palette().text))
        .id_salt(id)
        .default_open(true)
        .show(ui, |ui| {
            tokens::card_frame().show(ui, |ui| {
                ui.set_width(ui.available_width());
                body(ui);
            });
        });
}

fn profiles_ui(
    ui: &mut Ui,
    snapshot: &SettingsSnapshot,
    form: &mut SettingsForm,
    actions: &mut Vec<Action>,
) {
    widgets::section_label(ui, "Service profiles");
    for profile in &snapshot.profiles {
        profile_card_ui(ui, snapshot, profile, form, actions);
        ui.add_space(tokens::SPACE_S);
    }
    if let Some(note) = &form.saved_note {
        ui.label(
            RichText::new(note)
                .size(12.5)
                .color(tokens::palette().success),
        );
    }
    ui.add_space(tokens::SPACE_S);
    add_profile_ui(ui, form, actions);
}

fn profile_card_ui(
    ui: &mut Ui,
    snapshot: &SettingsSnapshot,
    profile: &ServiceProfile,
    form: &mut SettingsForm,
    actions: &mut Vec<Action>,
) {
    let active = profile.id == snapshot.active_profile_id;
    let frame = if active {
        tokens::card_frame().stroke(Stroke::new(1.0, tokens::palette().accent))
    } else {
        tokens::card_frame()
    };
    frame.show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.horizontal(|ui| {
            if ui.radio(active, profile.name.as_str()).clicked() && !active {
                actions.push(Action::ActivateProfile(profile.id.clone()));
            }
            if active {
                widgets::pill(ui, "active", tokens::palette().success);
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if !profile.is_local_sandbox() {
                    if ui.add(widgets::subtle_button("Remove")).clicked() {
                        actions.push(Action::Ask(Confirm::RemoveProfile {
                            id: profile.id.clone(),
                            name: profile.name.clone(),
                        }));
                    }
                    let editing = form
                        .editing
                        .as_ref()
                        .is_some_and(|(id, _)| *id == profile.id);
                    if !editing && ui.add(widgets::subtle_button("Edit")).clicked() {
                        let base_url = match &profile.kind {
                            ProfileKind::Remote { base_url } => base_url.clone(),
                            ProfileKind::LocalSandbox => String::new(),
                        };
                        form.editing = Some((
                            profile.id.clone(),
                            ProfileForm {
                                name: profile.name.clone(),
                                base_url,
                                ..Default::default()
                            },
                        ));
                    }
                }
                if !active && ui.add(widgets::secondary_button("Activate")).clicked() {
                    actions.push(Action::ActivateProfile(profile.id.clone()));
                }
            });
        });
        let detail = match &profile.kind {
            ProfileKind::LocalSandbox => {
                let mut text =
                    "Runs on this computer; works offline. Jobs and credits are simulated."
                        .to_owned();
                if active {
                    text = format!("{} — {text}", snapshot.service_label);
                }
                text
            }
            ProfileKind::Remote { base_url } => {
                let key = snapshot
                    .masked_keys
                    .get(&profile.id)
                    .cloned()
                    .unwrap_or_else(|| "no key stored".to_owned());
                format!("{base_url}  ·  key {key}")
            }
        };
        ui.label(
            RichText::new(detail)
                .size(12.5)
                .color(tokens::palette().text_muted),
        );
        if let Some(error) = snapshot.connection_error.as_ref().filter(|_| active) {
            ui.label(
                RichText::new(error)
                    .size(12.5)
                    .color(tokens::palette().danger),
            );
        }
        if let Some(error) = form.profile_errors.get(&profile.id) {
            widgets::field_error(ui, error);
        }
        account::test_connection_ui(ui, &profile.id, form, actions);
        if let Some((id, edit)) = form.editing.as_mut().filter(|(id, _)| *id == profile.id) {
            {
                ui.add_space(tokens::SPACE_S);
                let id = id.clone();
                let (save, cancel) = profile_fields_ui(ui, edit, true);
                if save {
                    actions.push(Action::SaveProfile(id));
                }
                if cancel {
                    form.editing = None;
                }
            }
        }
    });
}

/// The name/URL/key inputs. Returns (save clicked, cancel clicked).
fn profile_fields_ui(ui: &mut Ui, form: &mut ProfileForm, editing: bool) -> (bool, bool) {
    let field = |ui: &mut Ui, label: &str, value: &mut String, hint: &str, password: bool| {
        let label_response = widgets::section_label(ui, label);
        let response = ui.add(
            TextEdit::singleline(value)
                .hint_text(hint)
                .password(password)
                .desired_width(f32::INFINITY),
        );
        widgets::name_widget(&response, label);
        let _ = label_response;
    };
    field(ui, "Name", &mut form.name, "Studio account", false);
    if let Some(error) = form.error_for(ProfileField::Name) {
        widgets::field_error(ui, error);
    }
    field(
        ui,
        "Base URL",
        &mut form.base_url,
        "https://example.com/api",
        false,
    );
    ui.label(
        RichText::new("The service's address ending in /api; it is added if missing.")
            .size(tokens::TEXT_SMALL)
            .color(tokens::palette().text_faint),
    );
    if let Some(error) = form.error_for(ProfileField::BaseUrl) {
        widgets::field_error(ui, error);
    }
    let key_hint = if editing {
        "Leave empty to keep the stored key"
    } else {
        "fw_live_…"
    };
    field(ui, "API key", &mut form.api_key, key_hint, true);
    if let Some(error) = form.error_for(ProfileField::ApiKey) {
        widgets::field_error(ui, error);
    }
    if let Some(error) = form.error_for(ProfileField::General) {
        widgets::field_error(ui, error);
    }
    ui.add_space(tokens::SPACE_XS);
    let mut save = false;
    let mut cancel = false;
    ui.horizontal(|ui| {
        save = ui.add(widgets::primary_button("Save profile")).clicked();
        cancel = ui.add(widgets::subtle_button("Cancel")).clicked();
    });
    (save, cancel)
}

fn add_profile_ui(ui: &mut Ui, form: &mut SettingsForm, actions: &mut Vec<Action>) {
    if !form.add_open {
        if ui
            .add(widgets::secondary_button("Add remote service"))
            .clicked()
        {
            form.add_open = true;
            form.add = ProfileForm::default();
        }
        return;
    }
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.label(
            RichText::new("Add remote service")
                .size(tokens::TEXT_TITLE)
                .strong()
                .color(tokens::palette().text),
        );
        ui.add_space(tokens::SPACE_XS);
        let (save, cancel) = profile_fields_ui(ui, &mut form.add, false);
        if save {
            actions.push(Action::AddProfile);
        }
        if cancel {
            form.add_open = false;
            form.add = ProfileForm::default();
        }
    });
}

/// What removing a profile does, for its confirmation.
pub fn remove_profile_body(name: &str) -> String {
    format!(
        "The profile “{name}” and the API key stored for it are removed from this computer. \
         Jobs already on that service are not affected. To use it again you need to add it \
         with its key."
    )
}
