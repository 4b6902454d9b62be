//! The Palettes panel's state and logic (no egui): the editor's swatches, validation,
//! reference images and analysis, and the palette commands it sends.

use crate::api::palettes::{
    MAX_ANALYZE_IMAGES, MAX_PALETTE_COLORS, PaletteField, PaletteIssue, check_palette,
};
use crate::api::{AnalyzedColors, ApiError, ColorPalette, ColorSpec, NewPalette};
use crate::engine::{Command, Event, PaletteOpKind, PaletteSource};
use crate::palette::{PaletteColor, Rgb, Role};
use crate::ui::model::Action;
use crate::ui::toasts::ToastKind;
use std::collections::HashMap;
use std::path::PathBuf;

/// File extensions the panel accepts as reference images.
pub use crate::ui::dialogs::IMAGE_EXTENSIONS;

/// One editable colour.
#[derive(Clone, Debug, PartialEq)]
pub struct SwatchDraft {
    /// Stable across reorders (widget ids).
    pub uid: u64,
    /// The last valid colour (what the picker and the preview show).
    pub rgb: Rgb,
    /// What is typed in the hex field; validated as `#RRGGBB`.
    pub hex_text: String,
    /// Empty: the service fills the nearest built-in name (shown as the placeholder).
    pub name: String,
    pub role: Role,
}

impl SwatchDraft {
    pub fn nearest_name(&self) -> &'static str {
        crate::palette::nearest_name(self.rgb)
    }
    /// The name the directive will use.
    pub fn effective_name(&self) -> String {
        let name = self.name.trim();
        if name.is_empty() {
            self.nearest_name().to_owned()
        } else {
            name.to_owned()
        }
    }
    fn spec(&self) -> ColorSpec {
        ColorSpec {
            hex: self.hex_text.trim().to_ascii_uppercase(),
            name: self.name.trim().to_owned(),
            role: self.role.as_str().to_owned(),
        }
    }
}

/// Where the editor's colours came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwatchOrigin {
    Manual,
    /// Median cut on this machine; the service's answer will replace it.
    LocalPreview,
    /// The service's analysis.
    Service,
    /// A stored palette.
    Stored,
}

/// A reference image dropped, picked or entered as a URL.
#[derive(Clone, Debug, PartialEq)]
pub struct ReferenceImage {
    pub label: String,
    pub path: Option<PathBuf>,
    /// Known once uploaded (or given as a URL).
    pub url: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub enum AnalysisState {
    #[default]
    Idle,
    /// Waiting for the service (the local preview may already show).
    Running {
        request_id: u64,
    },
    Done,
    Failed(String),
}

/// The palette being edited.
#[derive(Clone, Debug)]
pub struct PaletteEditor {
    /// `None`: a new palette (Save creates it).
    pub palette_id: Option<String>,
    /// Organisation palettes are list-only through the API.
    pub read_only: bool,
    pub name: String,
    /// The name was filled in by analysis (so a new analysis may replace it).
    pub name_is_suggested: bool,
    pub swatches: Vec<SwatchDraft>,
    pub origin: SwatchOrigin,
    pub images: Vec<ReferenceImage>,
    /// Create only: activate for the current project as part of the save.
    pub activate_on_save: bool,
    pub show_validation: bool,
}

impl Default for PaletteEditor {
    fn default() -> Self {
        Self {
            palette_id: None,
            read_only: false,
            name: String::new(),
            name_is_suggested: false,
            swatches: Vec::new(),
            origin: SwatchOrigin::Manual,
            images: Vec::new(),
            activate_on_save: false,
            show_validation: false,
        }
    }
}

/// What the panel asks for; applied by [`PalettesState::apply`] after layout.
#[derive(Clone, Debug, PartialEq)]
pub enum PaletteAction {
    New,
    Open(String),
    AddSwatch,
    RemoveSwatch(usize),
    MoveSwatch {
        from: usize,
        to: usize,
    },
    Save,
    Activate,
    Deactivate,
    /// Confirmed in a modal first.
    Delete,
    AddImages(Vec<PathBuf>),
    AddImageUrl(String),
    RemoveImage(usize),
    Reload,
}

#[derive(Clone, Debug, PartialEq)]
struct PendingOp {
    kind: PaletteOpKind,
    palette_name: String,
    project_name: Option<String>,
}

/// The current project as the panel needs it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProjectRef {
    pub id: String,
    pub name: String,
}

#[derive(Default)]
pub struct PalettesState {
    pub editor: PaletteEditor,
    pub analysis: AnalysisState,
    /// Next to the drop zone.
    pub image_error: Option<String>,
    pub url_input: String,
    /// The last refusal of a save/activate/delete, shown by the action row.
    pub op_error: Option<String>,
    pending: HashMap<u64, PendingOp>,
    next_id: u64,
    next_uid: u64,
    /// The project the palette list was last requested for (`Some(None)`: no project).
    pub list_requested_for: Option<Option<String>>,
    /// The local median-cut result of the current analysis, kept after the service's
    /// answer replaces it on screen.
    pub local_preview: Option<AnalyzedColors>,
}

impl PalettesState {
    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn new_swatch(&mut self, rgb: Rgb, name: String, role: Role) -> SwatchDraft {
        self.next_uid += 1;
        SwatchDraft {
            uid: self.next_uid,
            rgb,
            hex_text: rgb.to_hex(),
            name,
            role,
        }
    }

    pub fn is_busy(&self) -> bool {
        !self.pending.is_empty()
    }

    pub fn analysis_running(&self) -> bool {
        matches!(self.analysis, AnalysisState::Running { .. })
    }

    /// Palette colours as the directive sees them (invalid hex fields keep the last colour).
    pub fn preview_colors(&self) -> Vec<PaletteColor> {
        self.editor
            .swatches
            .iter()
            .map(|s| PaletteColor {
                hex: s.rgb.to_hex(),
                name: s.effective_name(),
                role: s.role,
            })
            .collect()
    }

    pub fn specs(&self) -> Vec<ColorSpec> {
        self.editor.swatches.iter().map(SwatchDraft::spec).collect()
    }

    pub fn source_urls(&self) -> Vec<String> {
        self.editor
            .images
            .iter()
            .filter_map(|i| i.url.clone())
            .collect()
    }

    /// Everything the service would refuse, per field.
    pub fn issues(&self) -> Vec<PaletteIssue> {
        check_palette(&self.editor.name, &self.specs(), &self.source_urls())
    }

    /// Messages for one field (only after a refused save, except hex which is live).
    pub fn messages_for(&self, field: &PaletteField) -> Vec<String> {
        let live = matches!(field, PaletteField::ColorHex(_));
        if !live && !self.editor.show_validation {
            return Vec::new();
        }
        self.issues()
            .into_iter()
            .filter(|i| &i.field == field)
            .map(|i| i.message)
            .collect()
    }

    /// Load a stored palette into the editor.
    pub fn open(&mut self, palette: &ColorPalette) {
        let swatches = palette
            .colors
            .iter()
            .map(|c| {
                let rgb = Rgb::from_hex(&c.hex).unwrap_or(Rgb::new(0x80, 0x80, 0x80));
                let role = Role::from_str_opt(&c.role).unwrap_or(Role::Accent);
                let mut swatch = self.new_swatch(rgb, c.name.clone(), role);
                swatch.hex_text = c.hex.clone();
                swatch
            })
            .collect();
        self.editor = PaletteEditor {
            palette_id: Some(palette.id.clone()),
            read_only: palette.is_organization(),
            name: palette.name.clone(),
            name_is_suggested: false,
            swatches,
            origin: SwatchOrigin::Stored,
            images: palette
                .source_image_urls
                .iter()
                .map(|url| ReferenceImage {
                    label: url_label(url),
                    path: None,
                    url: Some(url.clone()),
                })
                .collect(),
            activate_on_save: false,
            show_validation: false,
        };
        self.analysis = AnalysisState::default();
        self.image_error = None;
        self.op_error = None;
    }

    /// Apply one panel action; returns follow-ups for the shell (commands, toasts).
    pub fn apply(
        &mut self,
        action: PaletteAction,
        palettes: &[ColorPalette],
        project: Option<&ProjectRef>,
    ) -> Vec<Action> {
        let mut out = Vec::new();
        match action {
            PaletteAction::New => {
                self.editor = PaletteEditor::default();
                self.analysis = AnalysisState::default();
                self.image_error = None;
                self.op_error = None;
            }
            PaletteAction::Open(id) => {
                if let Some(palette) = palettes.iter().find(|p| p.id == id) {
                    self.open(palette);
                }
            }
            PaletteAction::AddSwatch => {
                if self.editor.read_only || self.editor.swatches.len() >= MAX_PALETTE_COLORS {
                    return out;
                }
                let rgb = NEW_SWATCH_COLORS[self.editor.swatches.len() % NEW_SWATCH_COLORS.len()];
                let role = if self.editor.swatches.is_empty() {
                    Role::Dominant
                } else {
                    Role::Accent
                };
                let swatch = self.new_swatch(rgb, String::new(), role);
                self.editor.swatches.push(swatch);
                self.editor.origin = SwatchOrigin::Manual;
            }
            PaletteAction::RemoveSwatch(index) => {
                if !self.editor.read_only && index < self.editor.swatches.len() {
                    self.editor.swatches.remove(index);
                }
            }
            PaletteAction::MoveSwatch { from, to } => {
                let len = self.editor.swatches.len();
                if !self.editor.read_only && from < len && to < len && from != to {
                    let swatch = self.editor.swatches.remove(from);
                    self.editor.swatches.insert(to, swatch);
                }
            }
            PaletteAction::Save => out.extend(self.save(project)),
            PaletteAction::Activate => {
                if let (Some(id), Some(project)) = (self.editor.palette_id.clone(), project) {
                    let op_id = self.next_id();
                    self.pending.insert(
                        op_id,
                        PendingOp {
                            kind: PaletteOpKind::Activate,
                            palette_name: self.editor.name.trim().to_owned(),
                            project_name: Some(project.name.clone()),
                        },
                    );
                    self.op_error = None;
                    out.push(send(Command::ActivatePalette {
                        op_id,
                        palette_id: id,
                        project_id: project.id.clone(),
                    }));
                }
            }
            PaletteAction::Deactivate => {
                if let Some(project) = project {
                    let op_id = self.next_id();
                    self.pending.insert(
                        op_id,
                        PendingOp {
                            kind: PaletteOpKind::Deactivate,
                            palette_name: String::new(),
                            project_name: Some(project.name.clone()),
                        },
                    );
                    self.op_error = None;
                    out.push(send(Command::DeactivatePalette {
                        op_id,
                        project_id: project.id.clone(),
                    }));
                }
            }
            PaletteAction::Delete => {
                if let Some(id) = self.editor.palette_id.clone() {
                    let op_id = self.next_id();
                    self.pending.insert(
                        op_id,
                        PendingOp {
                            kind: PaletteOpKind::Delete,
                            palette_name: self.editor.name.trim().to_owned(),
                            project_name: None,
                        },
                    );
                    self.op_error = None;
                    out.push(send(Command::DeletePalette {
                        op_id,
                        palette_id: id,
                    }));
                }
            }
            PaletteAction::AddImages(paths) => out.extend(self.add_images(paths)),
            PaletteAction::AddImageUrl(url) => {
                let url = url.trim().to_owned();
                let ok = (url.starts_with("http://") || url.starts_with("https://"))
                    && url.len() > "https://".len()
                    && !url.contains(char::is_whitespace);
                if !ok {
                    self.image_error = Some("Enter an http:// or https:// image URL.".to_owned());
                } else if self.editor.images.len() >= MAX_ANALYZE_IMAGES {
                    self.image_error = Some(format!(
                        "Use at most {MAX_ANALYZE_IMAGES} images; remove one first."
                    ));
                } else {
                    self.editor.images.push(ReferenceImage {
                        label: url_label(&url),
                        path: None,
                        url: Some(url),
                    });
                    self.url_input.clear();
                    self.image_error = None;
                    out.extend(self.analyze());
                }
            }
            PaletteAction::RemoveImage(index) => {
                if index < self.editor.images.len() {
                    self.editor.images.remove(index);
                    self.image_error = None;
                }
            }
            PaletteAction::Reload => {
                self.list_requested_for = None;
            }
        }
        out
    }

    /// Dropped or picked files: keep the images (1-5), then analyse all of them.
    pub fn add_images(&mut self, paths: Vec<PathBuf>) -> Vec<Action> {
        if self.editor.read_only {
            self.image_error =
                Some("Organisation palettes are read-only; start a new palette.".to_owned());
            return Vec::new();
        }
        let mut skipped = Vec::new();
        let mut added = 0;
        for path in paths {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.display().to_string());
            let is_image = crate::ui::dialogs::is_image_path(&path);
            if !is_image {
                skipped.push(format!("{name} is not an image"));
                continue;
            }
            if self.editor.images.len() >= MAX_ANALYZE_IMAGES {
                skipped.push(format!("{name} (at most {MAX_ANALYZE_IMAGES} images)"));
                continue;
            }
            self.editor.images.push(ReferenceImage {
                label: name,
                path: Some(path),
                url: None,
            });
            added += 1;
        }
        self.image_error = (!skipped.is_empty()).then(|| format!("Skipped {}", skipped.join(", ")));
        if added == 0 {
            return Vec::new();
        }
        self.analyze()
    }

    /// Analyse every reference image (uploaded ones by URL).
    fn analyze(&mut self) -> Vec<Action> {
        if self.editor.images.is_empty() {
            return Vec::new();
        }
        let request_id = self.next_id();
        let sources = self
            .editor
            .images
            .iter()
            .filter_map(|image| match (&image.url, &image.path) {
                (Some(url), _) => Some(PaletteSource::Url(url.clone())),
                (None, Some(path)) => Some(PaletteSource::File(path.clone())),
                (None, None) => None,
            })
            .collect();
        self.analysis = AnalysisState::Running { request_id };
        self.local_preview = None;
        vec![send(Command::AnalyzePalette {
            request_id,
            sources,
        })]
    }

    fn save(&mut self, project: Option<&ProjectRef>) -> Vec<Action> {
        if self.editor.read_only {
            return Vec::new();
        }
        if !self.issues().is_empty() {
            self.editor.show_validation = true;
            return Vec::new();
        }
        self.editor.show_validation = false;
        let activate_for =
            project.filter(|_| self.editor.activate_on_save && self.editor.palette_id.is_none());
        let body = NewPalette {
            name: self.editor.name.trim().to_owned(),
            colors: self.specs(),
            source_image_urls: self.source_urls(),
            is_active: activate_for.map(|_| true),
            project_id: activate_for.map(|p| p.id.clone()),
        };
        let op_id = self.next_id();
        let kind = if self.editor.palette_id.is_some() {
            PaletteOpKind::Update
        } else {
            PaletteOpKind::Create
        };
        self.pending.insert(
            op_id,
            PendingOp {
                kind,
                palette_name: body.name.clone(),
                project_name: activate_for.map(|p| p.name.clone()),
            },
        );
        self.op_error = None;
        vec![send(Command::SavePalette {
            op_id,
            palette_id: self.editor.palette_id.clone(),
            body,
        })]
    }

    /// Take the engine's palette answers. Returns follow-ups (refresh, toasts).
    pub fn handle_event(&mut self, event: Event) -> Vec<Action> {
        let mut out = Vec::new();
        match event {
            Event::PaletteOpDone {
                op_id,
                kind,
                result,
            } => {
                let Some(pending) = self.pending.remove(&op_id) else {
                    return out;
                };
                match result {
                    Ok(palette) => {
                        let project = pending.project_name.clone().unwrap_or_default();
                        let text = match kind {
                            PaletteOpKind::Create if pending.project_name.is_some() => format!(
                                "Saved “{}” and activated it for {project}",
                                pending.palette_name
                            ),
                            PaletteOpKind::Create => {
                                format!("Saved “{}”", pending.palette_name)
                            }
                            PaletteOpKind::Update => {
                                format!("Updated “{}”", pending.palette_name)
                            }
                            PaletteOpKind::Delete => {
                                format!("Deleted “{}”", pending.palette_name)
                            }
                            PaletteOpKind::Activate => format!(
                                "“{}” now grades {project} (generations may take up to a minute to pick it up)",
                                pending.palette_name
                            ),
                            PaletteOpKind::Deactivate => format!("{project} is no longer graded"),
                        };
                        match kind {
                            PaletteOpKind::Create | PaletteOpKind::Update => {
                                // A saved palette no longer waits on a failed analysis.
                                if matches!(self.analysis, AnalysisState::Failed(_)) {
                                    self.analysis = AnalysisState::default();
                                }
                                self.image_error = None;
                                if let Some(palette) = palette {
                                    self.editor.palette_id = Some(palette.id.clone());
                                }
                                self.editor.activate_on_save = false;
                            }
                            PaletteOpKind::Delete => {
                                self.editor = PaletteEditor::default();
                                self.analysis = AnalysisState::default();
                            }
                            PaletteOpKind::Activate | PaletteOpKind::Deactivate => {}
                        }
                        out.push(Action::Toast(ToastKind::Success, text));
                        self.list_requested_for = None;
                    }
                    Err(error) => {
                        self.op_error = Some(op_error_text(kind, &error));
                    }
                }
            }
            Event::PaletteLocalPreview { request_id, result } => {
                if self.analysis != (AnalysisState::Running { request_id }) {
                    return out;
                }
                match result {
                    Ok(colors) => {
                        self.local_preview = Some(colors.clone());
                        self.take_analysis(colors, SwatchOrigin::LocalPreview);
                    }
                    Err(error) => self.image_error = Some(error),
                }
            }
            Event::PaletteAnalyzed {
                request_id,
                source_urls,
                result,
            } => {
                if self.analysis != (AnalysisState::Running { request_id }) {
                    return out;
                }
                // Uploaded files now have URLs (in order; URL sources map to themselves).
                let mut urls = source_urls.into_iter();
                for image in self.editor.images.iter_mut() {
                    match urls.next() {
                        Some(url) => image.url = Some(url),
                        None => break,
                    }
                }
                match result {
                    Ok(colors) => {
                        // The service's answer supersedes a failed local preview.
                        self.image_error = None;
                        self.take_analysis(colors, SwatchOrigin::Service);
                        self.analysis = AnalysisState::Done;
                    }
                    Err(error) => {
                        let typed: Vec<&str> = self
                            .editor
                            .images
                            .iter()
                            .filter(|image| image.path.is_none())
                            .filter_map(|image| image.url.as_deref())
                            .collect();
                        self.analysis = AnalysisState::Failed(analysis_error_text(&error, &typed));
                    }
                }
            }
            _ => {}
        }
        out
    }

    fn take_analysis(&mut self, analyzed: AnalyzedColors, origin: SwatchOrigin) {
        let swatches: Vec<SwatchDraft> = analyzed
            .colors
            .iter()
            .take(MAX_PALETTE_COLORS)
            .filter_map(|c| {
                let rgb = Rgb::from_hex(&c.hex)?;
                let role = Role::from_str_opt(&c.role).unwrap_or(Role::Accent);
                Some(self.new_swatch(rgb, c.name.clone(), role))
            })
            .collect();
        if swatches.is_empty() {
            self.image_error = Some("No colours were found in these images.".to_owned());
            return;
        }
        self.editor.swatches = swatches;
        self.editor.origin = origin;
        if self.editor.name.trim().is_empty() || self.editor.name_is_suggested {
            self.editor.name = analyzed.name.chars().take(100).collect();
            self.editor.name_is_suggested = true;
        }
    }
}

fn send(command: Command) -> Action {
    Action::Send(Box::new(command))
}

fn url_label(url: &str) -> String {
    url.split(['?', '#'])
        .next()
        .unwrap_or(url)
        .rsplit('/')
        .find(|s| !s.is_empty())
        .unwrap_or(url)
        .to_owned()
}

/// Why an analysis failed, in words that name the cause. The service only fetches public
/// addresses (no private or internal hosts, no redirects, 20 MB each) and says just
/// "could not be downloaded", so typed addresses it would refuse are named here.
pub fn analysis_error_text(error: &ApiError, typed_urls: &[&str]) -> String {
    if error.is_rate_limited() {
        let wait = error
            .retry_after_secs()
            .map(|secs| format!(" in {} s", secs.max(1.0).ceil() as u64))
            .unwrap_or_default();
        return format!(
            "The service analyses at most 10 sets of images a minute; try again{wait}."
        );
    }
    if error.status() != Some(400) {
        return format!("The service could not analyse the images: {error}");
    }
    let private: Vec<&str> = typed_urls
        .iter()
        .copied()
        .filter(|url| is_private_address(url))
        .collect();
    if !private.is_empty() {
        return format!(
            "The service refused {}: it only fetches public addresses, never private, \
             local or internal ones. Drop the image file here instead. ({error})",
            private.join(", ")
        );
    }
    format!(
        "The service could not use the images: {error}. It only fetches public addresses \
         that answer directly (no redirects), up to 20 MB per image; drop the image files \
         here instead."
    )
}

/// Hosts a service will not fetch for a caller: loopback, private and link-local
/// networks, and local names.
fn is_private_address(url: &str) -> bool {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = after_scheme.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(rest) = host_port.strip_prefix('[') {
        rest.split(']').next().unwrap_or(rest)
    } else {
        host_port.split(':').next().unwrap_or(host_port)
    }
    .to_ascii_lowercase();
    if host == "localhost"
        || host.ends_with(".localhost")
        || host.ends_with(".local")
        || host.ends_with(".internal")
        || !host.contains('.') && !host.contains(':')
    {
        return true;
    }
    match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(ip)) => {
            ip.is_loopback()
                || ip.is_private()
                || ip.is_link_local()
                || ip.is_unspecified()
                || ip.octets()[0] == 100 && (64..128).contains(&ip.octets()[1])
        }
        Ok(std::net::IpAddr::V6(ip)) => {
            ip.is_loopback()
                || ip.is_unspecified()
                || (ip.segments()[0] & 0xfe00) == 0xfc00
                || (ip.segments()[0] & 0xffc0) == 0xfe80
        }
        Err(_) => false,
    }
}

fn op_error_text(kind: PaletteOpKind, error: &ApiError) -> String {
    let what = match kind {
        PaletteOpKind::Create => "save the palette",
        PaletteOpKind::Update => "update the palette",
        PaletteOpKind::Delete => "delete the palette",
        PaletteOpKind::Activate => "activate the palette",
        PaletteOpKind::Deactivate => "deactivate the project's palette",
    };
    let hint = match error.status() {
        Some(403) => " You need edit permission on this project.",
        Some(404) => " Only your own palettes can be changed.",
        _ => "",
    };
    format!("Could not {what}: {error}.{hint}")
}

/// Colours a new swatch starts with, in turn.
const NEW_SWATCH_COLORS: [Rgb; 6] = [
    Rgb::new(0x2F, 0x4F, 0x6F),
    Rgb::new(0xD9, 0x8C, 0x3F),
    Rgb::new(0x3E, 0x8E, 0x7E),
    Rgb::new(0xE8, 0xDC, 0xC8),
    Rgb::new(0x8E, 0x3B, 0x46),
    Rgb::new(0x1C, 0x1F, 0x26),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn state_with(n: usize) -> PalettesState {
        let mut state = PalettesState::default();
        for _ in 0..n {
            state.apply(PaletteAction::AddSwatch, &[], None);
        }
        state
    }

    #[test]
    fn swatches_add_move_remove_and_cap_at_ten() {
        let mut state = state_with(12);
        assert_eq!(state.editor.swatches.len(), MAX_PALETTE_COLORS);
        let first = state.editor.swatches[0].uid;
        state.apply(PaletteAction::MoveSwatch { from: 0, to: 2 }, &[], None);
        assert_eq!(state.editor.swatches[2].uid, first);
        state.apply(PaletteAction::RemoveSwatch(2), &[], None);
        assert!(state.editor.swatches.iter().all(|s| s.uid != first));
    }

    #[test]
    fn save_is_refused_with_messages_at_the_fields() {
        let mut state = state_with(1);
        state.editor.swatches[0].hex_text = "#12345".into();
        assert!(
            state.apply(PaletteAction::Save, &[], None).is_empty(),
            "nothing is sent"
        );
        assert!(!state.messages_for(&PaletteField::Name).is_empty());
        assert!(!state.messages_for(&PaletteField::ColorHex(0)).is_empty());
        state.editor.name = "Dusk".into();
        state.editor.swatches[0].hex_text = "#123456".into();
        let project = ProjectRef {
            id: "p".into(),
            name: "P".into(),
        };
        state.editor.activate_on_save = true;
        let actions = state.apply(PaletteAction::Save, &[], Some(&project));
        match actions.as_slice() {
            [Action::Send(command)] => match command.as_ref() {
                Command::SavePalette {
                    palette_id: None,
                    body,
                    ..
                } => {
                    assert_eq!(body.project_id.as_deref(), Some("p"));
                    assert_eq!(body.colors[0].name, "", "empty name is sent empty");
                }
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_service_analysis_replaces_the_local_preview() {
        let mut state = PalettesState::default();
        let actions = state.add_images(vec![PathBuf::from("/tmp/a.png")]);
        let Some(Action::Send(command)) = actions.first() else {
            panic!("analyze sent")
        };
        let Command::AnalyzePalette { request_id, .. } = command.as_ref() else {
            panic!("analyze")
        };
        let request_id = *request_id;
        let colors = |hex: &str, name: &str| AnalyzedColors {
            name: name.into(),
            colors: vec![ColorSpec {
                hex: hex.into(),
                name: "X".into(),
                role: "dominant".into(),
            }],
        };
        state.handle_event(Event::PaletteLocalPreview {
            request_id,
            result: Ok(colors("#101010", "Local")),
        });
        assert_eq!(state.editor.origin, SwatchOrigin::LocalPreview);
        assert_eq!(state.editor.name, "Local");
        state.handle_event(Event::PaletteAnalyzed {
            request_id,
            source_urls: vec!["http://x/a.png".into()],
            result: Ok(colors("#202020", "Service")),
        });
        assert_eq!(state.editor.origin, SwatchOrigin::Service);
        assert_eq!(state.editor.name, "Service");
        assert_eq!(state.editor.swatches[0].hex_text, "#202020");
        assert_eq!(state.source_urls(), vec!["http://x/a.png".to_owned()]);
    }

    fn refused() -> ApiError {
        ApiError::Status {
            status: 400,
            message: "None of the images could be downloaded".into(),
            code: None,
            retry_after_secs: None,
        }
    }

    #[test]
    fn a_refused_private_address_is_named_as_the_reason() {
        let text = analysis_error_text(
            &refused(),
            &["http://192.168.1.20/ref.png", "https://example.com/a.png"],
        );
        assert!(text.contains("http://192.168.1.20/ref.png"), "{text}");
        assert!(text.contains("private"), "{text}");
        assert!(!text.contains("example.com"), "{text}");
        for private in [
            "http://localhost:8080/a.png",
            "http://[::1]/a",
            "http://10.1.2.3/x",
            "http://nas/x.png",
        ] {
            assert!(is_private_address(private), "{private}");
        }
        assert!(!is_private_address("https://images.example.org/a.png"));
    }

    #[test]
    fn other_refusals_say_what_the_service_fetches() {
        let text = analysis_error_text(&refused(), &["https://example.com/a.png"]);
        assert!(text.contains("public addresses"), "{text}");
        assert!(
            text.contains("None of the images could be downloaded"),
            "{text}"
        );
        let limited = ApiError::Status {
            status: 429,
            message: "slow down".into(),
            code: Some("RATE_LIMITED".into()),
            retry_after_secs: Some(60.0),
        };
        assert!(analysis_error_text(&limited, &[]).contains("try again in 60 s"));
    }

    #[test]
    fn a_failed_analysis_message_clears_when_the_palette_is_saved() {
        let mut state = state_with(1);
        state.editor.name = "Dusk".into();
        state.analysis = AnalysisState::Failed("The service refused …".into());
        let actions = state.apply(PaletteAction::Save, &[], None);
        let [Action::Send(command)] = actions.as_slice() else {
            panic!("save sent: {actions:?}")
        };
        let Command::SavePalette { op_id, .. } = command.as_ref() else {
            panic!("save")
        };
        state.handle_event(Event::PaletteOpDone {
            op_id: *op_id,
            kind: PaletteOpKind::Create,
            result: Ok(None),
        });
        assert_eq!(state.analysis, AnalysisState::Idle);
        assert_eq!(state.op_error, None);
    }
}
