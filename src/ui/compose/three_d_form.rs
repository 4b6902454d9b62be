//! The 3D model form (POST /v1/generate/3d): mode (From text / From an image / From
//! several images), prompt, reference images (web addresses, or image files dropped on the
//! form — uploaded first through `Command::UploadSource`), triangle target, PBR, and
//! the model list of the mode's catalog type. Its own Generate row shows the price once
//! per model. Submits `GenerationSpec::for_catalog(CatalogJobRequest::ThreeD(..))`.

use crate::api::pricing::{estimate_range_for_auto, three_d_price};
use crate::api::validate::{Field, FieldError, THREE_D_MAX_VIEWS, validate_three_d};
use crate::api::{CatalogJobRequest, GenerationSpec, ModelRecord, ThreeDMode, ThreeDRequest};
use crate::engine::Command;
use crate::ui::format;
use crate::ui::icons::Icon;
use crate::ui::model::{Action, Model};
use crate::ui::tokens;
use crate::ui::widgets;
use egui::{RichText, Ui, Vec2};
use std::path::{Path, PathBuf};

/// A dropped image on its way to the service (its address replaces it when uploaded).
#[derive(Clone, Debug, PartialEq)]
pub struct PendingImage {
    pub path: PathBuf,
    /// Why the upload failed, once it has.
    pub error: Option<String>,
}

/// Triangle targets offered (`None`: the service's default, about 20,000).
pub const POLYCOUNT_CHOICES: [(Option<u32>, &str); 5] = [
    (None, "Default (about 20,000)"),
    (Some(5_000), "Low · 5,000"),
    (Some(50_000), "High · 50,000"),
    (Some(100_000), "Very high · 100,000"),
    (Some(300_000), "Maximum · 300,000"),
];

/// Accessible names (kittest finds the controls by them).
pub const PROMPT_NAME: &str = "3D prompt";
pub const MODE_NAMES: [(ThreeDMode, &str); 3] = [
    (ThreeDMode::Text, "From text"),
    (ThreeDMode::Single, "From an image"),
    (ThreeDMode::Multi, "From several images"),
];
pub const POLYCOUNT_NAME: &str = "Triangles";
pub const MODEL_NAME: &str = "3D model";
pub const PBR_NAME: &str = "PBR materials";

#[derive(Clone, Debug, Default)]
pub struct ThreeDForm {
    pub mode: ThreeDMode,
    pub prompt: String,
    /// Reference image addresses; blank rows are ignored.
    pub images: Vec<String>,
    pub polycount: Option<u32>,
    pub enable_pbr: bool,
    /// `None`: Auto (the service picks the mode's default model).
    pub model_id: Option<String>,
    /// Problems found by the last refused Generate.
    pub errors: Vec<FieldError>,
    /// Dropped image files being uploaded.
    pub uploading: Vec<PendingImage>,
}

impl ThreeDForm {
    pub fn request(&self, project_id: Option<&str>) -> ThreeDRequest {
        let images: Vec<String> = match self.mode {
            ThreeDMode::Text => Vec::new(),
            _ => self
                .images
                .iter()
                .map(|u| u.trim().to_owned())
                .filter(|u| !u.is_empty())
                .collect(),
        };
        ThreeDRequest {
            mode: self.mode,
            prompt: self.prompt.trim().to_owned(),
            reference_images: images,
            model: self.model_id.clone(),
            target_polycount: self.polycount,
            enable_pbr: self.enable_pbr.then_some(true),
            project_id: project_id.map(str::to_owned),
            ..ThreeDRequest::default()
        }
    }

    pub fn spec(&self, project_id: Option<&str>) -> GenerationSpec {
        GenerationSpec::for_catalog(CatalogJobRequest::ThreeD(self.request(project_id)))
    }

    /// The chosen model's record (`None` for Auto or a model not in the catalog).
    fn chosen<'a>(&self, model: &'a Model) -> Option<&'a ModelRecord> {
        let id = self.model_id.as_deref()?;
        model
            .models_of_kind(self.mode.catalog_type())
            .into_iter()
            .find(|m| m.identifier == id)
    }

    /// Credits: the chosen model's, or the mode's range for Auto (low, high).
    pub fn estimate(&self, model: &Model) -> Option<(f64, f64)> {
        match self.chosen(model) {
            Some(record) => three_d_price(record).map(|c| (c, c)),
            None => {
                let catalog = model.catalog.value.as_deref().unwrap_or(&[]);
                estimate_range_for_auto(catalog, &self.spec(None))
            }
        }
    }

    pub fn button_text(&self, model: &Model) -> String {
        match self.estimate(model) {
            Some((low, high)) if (high - low).abs() < f64::EPSILON => {
                format!("Generate 3D model · {}", format::credits(high))
            }
            Some((low, high)) => {
                format!("Generate 3D model · {}", format::credit_range(low, high))
            }
            None => "Generate 3D model".to_owned(),
        }
    }

    /// Image files dropped on the form: each is uploaded and its address fills the next
    /// empty view (a text-mode form switches to one image, or to several). Returns the
    /// uploads to send and the names of files that are not images.
    pub fn add_files(&mut self, paths: Vec<PathBuf>) -> (Vec<Action>, Vec<String>) {
        let mut actions = Vec::new();
        let mut skipped = Vec::new();
        for path in paths {
            if !crate::ui::dialogs::is_image_path(&path) {
                skipped.push(display_name(&path));
                continue;
            }
            actions.push(Action::Send(Box::new(Command::UploadSource {
                path: path.clone(),
            })));
            self.uploading.push(PendingImage { path, error: None });
        }
        let wanted = self.filled_images() + self.uploading.len();
        match self.mode {
            ThreeDMode::Text | ThreeDMode::Single if wanted > 1 => self.set_mode(ThreeDMode::Multi),
            ThreeDMode::Text if wanted == 1 => self.set_mode(ThreeDMode::Single),
            _ => {}
        }
        (actions, skipped)
    }

    /// An upload answered (`Event::SourceUploaded`); false when it was not this form's.
    pub fn upload_finished(&mut self, path: &Path, result: &Result<String, String>) -> bool {
        let Some(index) = self.uploading.iter().position(|p| p.path == path) else {
            return false;
        };
        match result {
            Ok(url) => {
                self.uploading.remove(index);
                match self.images.iter_mut().find(|u| u.trim().is_empty()) {
                    Some(blank) => *blank = url.clone(),
                    None => self.images.push(url.clone()),
                }
                if self.mode == ThreeDMode::Single {
                    self.images.truncate(1);
                }
            }
            Err(error) => self.uploading[index].error = Some(error.clone()),
        }
        true
    }

    fn filled_images(&self) -> usize {
        self.images.iter().filter(|u| !u.trim().is_empty()).count()
    }

    pub fn submit(&mut self, model: &Model, project_id: Option<&str>) -> Vec<Action> {
        // A file's path typed in a view (keyboard users type where others drop): uploaded
        // like a dropped file; Generate then waits for it as for any upload.
        let typed: Vec<PathBuf> = self
            .images
            .iter_mut()
            .filter_map(|text| {
                let path = crate::file_url::typed_local_path(text)?;
                text.clear();
                Some(path)
            })
            .collect();
        if !typed.is_empty() {
            let (uploads, skipped) = self.add_files(typed);
            let message = match skipped.first() {
                Some(name) => format!("{name} is not an image file."),
                None => "Uploading the image files; Generate when they are done.".to_owned(),
            };
            self.errors = vec![FieldError {
                field: Field::ReferenceImages,
                message,
            }];
            return uploads;
        }
        if let Some(pending) = self.uploading.first() {
            let name = display_name(&pending.path);
            let message = match &pending.error {
                Some(error) => super::motion_form::upload_refusal(&name, error),
                None => format!("Wait for {name} to finish uploading."),
            };
            self.errors = vec![FieldError {
                field: Field::ReferenceImages,
                message,
            }];
            return Vec::new();
        }
        let spec = self.spec(project_id);
        let errors = validate_three_d(&spec, self.chosen(model));
        if !errors.is_empty() {
            self.errors = errors;
            return Vec::new();
        }
        self.errors.clear();
        let model_label = self
            .chosen(model)
            .map_or("Auto".to_owned(), |m| m.display_name().to_owned());
        vec![Action::Send(Box::new(Command::Submit {
            spec,
            model_label,
            credits_estimate: self.estimate(model).map(|(_, high)| high),
        }))]
    }

    fn error(&self, field: Field) -> Option<&str> {
        self.errors
            .iter()
            .find(|e| e.field == field)
            .map(|e| e.message.as_str())
    }

    fn set_mode(&mut self, mode: ThreeDMode) {
        if self.mode == mode {
            return;
        }
        self.mode = mode;
        // A model of another mode's type cannot serve this one.
        self.model_id = None;
        self.errors.clear();
        let (min, _) = crate::api::validate::three_d_image_range(mode);
        if self.images.len() < min {
            self.images.resize(min, String::new());
        }
        if mode == ThreeDMode::Single {
            self.images.truncate(1);
            if self.images.is_empty() {
                self.images.push(String::new());
            }
        }
    }
}

/// The form's cards: mode and prompt, images, options and model.
pub fn form_ui(ui: &mut Ui, model: &Model, form: &mut ThreeDForm, actions: &mut Vec<Action>) {
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        widgets::section_label(ui, "Make it");
        ui.horizontal_wrapped(|ui| {
            for (mode, name) in MODE_NAMES {
                let button = ui.selectable_label(form.mode == mode, name);
                widgets::name_widget(&button, name);
                if button.clicked() {
                    form.set_mode(mode);
                }
            }
        });
        ui.add_space(tokens::SPACE_S);
        let hint = match form.mode {
            ThreeDMode::Text => "Describe the object: a brass desk lamp with a round shade…",
            _ => "Optional: what the object is and what matters about it",
        };
        let prompt = ui.add(
            egui::TextEdit::multiline(&mut form.prompt)
                .hint_text(hint)
                .desired_rows(3)
                .desired_width(f32::INFINITY),
        );
        widgets::name_widget(&prompt, PROMPT_NAME);
        if let Some(message) = form.error(Field::Prompt) {
            widgets::field_error(ui, message);
        }
    });
    if form.mode != ThreeDMode::Text {
        ui.add_space(tokens::SPACE_M);
        images_card_ui(ui, form, actions);
    }
    ui.add_space(tokens::SPACE_M);
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        widgets::section_label(ui, "Model");
        let models = model.models_of_kind(form.mode.catalog_type());
        let current = form
            .model_id
            .as_deref()
            .and_then(|id| models.iter().find(|m| m.identifier == id))
            .map_or("Auto".to_owned(), |m| m.display_name().to_owned());
        let combo = egui::ComboBox::from_id_salt("three_d_model")
            .selected_text(current)
            .width(ui.available_width().min(320.0))
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut form.model_id, None, "Auto");
                for m in &models {
                    let label = match three_d_price(m) {
                        Some(c) => format!("{} · {}", m.display_name(), format::credits(c)),
                        None => m.display_name().to_owned(),
                    };
                    ui.selectable_value(&mut form.model_id, Some(m.identifier.clone()), label);
                }
            });
        widgets::name_widget(&combo.response, MODEL_NAME);
        if let Some(message) = form.error(Field::Model) {
            widgets::field_error(ui, message);
        }
        ui.add_space(tokens::SPACE_S);
        widgets::section_label(ui, "Detail");
        let current = POLYCOUNT_CHOICES
            .iter()
            .find(|(v, _)| *v == form.polycount)
            .map_or("Custom".to_owned(), |(_, label)| (*label).to_owned());
        let combo = egui::ComboBox::from_id_salt("three_d_polycount")
            .selected_text(current)
            .width(ui.available_width().min(320.0))
            .show_ui(ui, |ui| {
                for (value, label) in POLYCOUNT_CHOICES {
                    ui.selectable_value(&mut form.polycount, value, label);
                }
            });
        widgets::name_widget(&combo.response, POLYCOUNT_NAME);
        if let Some(message) = form.error(Field::Polycount) {
            widgets::field_error(ui, message);
        }
        let pbr = ui
            .checkbox(&mut form.enable_pbr, PBR_NAME)
            .on_hover_text("Metal and roughness maps as well as colour");
        widgets::name_widget(&pbr, PBR_NAME);
    });
}

fn images_card_ui(ui: &mut Ui, form: &mut ThreeDForm, actions: &mut Vec<Action>) {
    tokens::card_frame().show(ui, |ui| {
        ui.set_width(ui.available_width());
        let (title, max) = match form.mode {
            ThreeDMode::Single => ("Image", 1),
            _ => ("Views (2 to 4)", THREE_D_MAX_VIEWS),
        };
        widgets::section_label(ui, title);
        ui.horizontal_wrapped(|ui| {
            let label = if max > 1 {
                "Choose files…"
            } else {
                "Choose file…"
            };
            let choose = ui.add(widgets::secondary_button(label));
            widgets::name_widget(&choose, "Choose images for the 3D model");
            if choose.clicked() {
                actions.push(Action::PickThreeDImages);
            }
            widgets::muted(ui, "or drop images here");
        });
        if form.images.is_empty() {
            form.images.push(String::new());
        }
        let mut remove = None;
        let count = form.images.len();
        for (i, url) in form.images.iter_mut().enumerate() {
            ui.horizontal(|ui| {
                let field = ui.add(
                    egui::TextEdit::singleline(url)
                        .hint_text("https://…, a file's path, or drop an image file here")
                        .desired_width(ui.available_width() - 36.0),
                );
                widgets::name_widget(&field, &format!("Reference image {}", i + 1));
                if count > 1 {
                    let name = format!("Remove reference image {}", i + 1);
                    if widgets::icon_button(ui, Icon::Close, &name).clicked() {
                        remove = Some(i);
                    }
                }
            });
        }
        if let Some(i) = remove {
            form.images.remove(i);
        }
        let mut forget = None;
        for (i, pending) in form.uploading.iter().enumerate() {
            ui.horizontal(|ui| {
                let name = display_name(&pending.path);
                match &pending.error {
                    None => {
                        ui.spinner();
                        ui.label(format!("Uploading {name}…"));
                    }
                    Some(error) => {
                        widgets::field_error(ui, &super::motion_form::upload_refusal(&name, error));
                    }
                }
                if widgets::icon_button(ui, Icon::Close, &format!("Remove {name}")).clicked() {
                    forget = Some(i);
                }
            });
        }
        if let Some(i) = forget {
            form.uploading.remove(i);
        }
        if form.images.len() < max {
            let add = ui.add(widgets::secondary_button("Add view"));
            widgets::name_widget(&add, "Add view");
            if add.clicked() {
                form.images.push(String::new());
            }
        }
        if let Some(message) = form.error(Field::ReferenceImages) {
            widgets::field_error(ui, message);
        }
    });
}

/// The Generate button under the form, with its price.
pub fn submit_row_ui(ui: &mut Ui, model: &Model, form: &ThreeDForm, actions: &mut Vec<Action>) {
    let button = widgets::primary_button(form.button_text(model))
        .min_size(Vec2::new(ui.available_width(), 40.0));
    if ui
        .add(button)
        .on_hover_text("Priced once per model, whatever the detail.")
        .clicked()
    {
        actions.push(Action::SubmitCompose);
    }
    match form.errors.first() {
        Some(error) => widgets::field_error(ui, &error.message),
        None => {
            ui.label(
                RichText::new("The model comes back as GLB and OBJ; open it to turn it around.")
                    .size(tokens::TEXT_SMALL)
                    .color(tokens::palette().text_faint),
            );
        }
    }
}

fn display_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model_with(records: Vec<ModelRecord>) -> Model {
        let mut model = Model::default();
        model.catalog.value = Some(records);
        model
    }

    fn record(id: &str, catalog_type: &str, credit: f64) -> ModelRecord {
        ModelRecord {
            identifier: id.into(),
            types: vec![catalog_type.into()],
            credit: Some(credit),
            ..ModelRecord::default()
        }
    }

    #[test]
    fn a_text_model_submits_the_3d_body_with_its_price() {
        let model = model_with(vec![
            record("tripo/v2.5-text", "3d_text_to_model", 30.0),
            record("worldlabs/marble", "3d_world", 60.0),
        ]);
        let mut form = ThreeDForm {
            prompt: " a brass lamp ".into(),
            polycount: Some(50_000),
            enable_pbr: true,
            ..ThreeDForm::default()
        };
        assert_eq!(form.button_text(&model), "Generate 3D model · 30 credits");
        let actions = form.submit(&model, Some("p1"));
        let [Action::Send(command)] = actions.as_slice() else {
            panic!("{actions:?}");
        };
        let Command::Submit {
            spec,
            credits_estimate,
            ..
        } = command.as_ref()
        else {
            panic!();
        };
        assert_eq!(*credits_estimate, Some(30.0));
        let body = spec.catalog.as_ref().unwrap().body().unwrap();
        assert_eq!(body["mode"], "text");
        assert_eq!(body["prompt"], "a brass lamp");
        assert_eq!(body["target_polycount"], 50_000);
        assert_eq!(body["enable_pbr"], true);
        assert_eq!(body["project_id"], "p1");
    }

    #[test]
    fn a_missing_image_is_refused_at_the_field() {
        let model = model_with(vec![]);
        let mut form = ThreeDForm::default();
        form.set_mode(ThreeDMode::Single);
        assert!(form.submit(&model, None).is_empty());
        assert!(form.error(Field::ReferenceImages).is_some());
        form.images[0] = "https://h/chair.png".into();
        assert_eq!(form.submit(&model, None).len(), 1);
    }

    #[test]
    fn a_typed_file_path_is_uploaded_like_a_dropped_file() {
        let model = model_with(vec![]);
        let mut form = ThreeDForm::default();
        form.set_mode(ThreeDMode::Single);
        form.images = vec!["/home/ada/chair.png".into()];
        let actions = form.submit(&model, None);
        assert!(
            matches!(
                actions.as_slice(),
                [Action::Send(c)] if matches!(c.as_ref(), Command::UploadSource { path } if path == Path::new("/home/ada/chair.png"))
            ),
            "the typed path is uploaded, nothing is submitted"
        );
        assert!(form.error(Field::ReferenceImages).is_some());
        assert!(form.upload_finished(
            Path::new("/home/ada/chair.png"),
            &Ok("https://h/chair.png".into())
        ));
        assert_eq!(form.request(None).reference_images, ["https://h/chair.png"]);
        assert_eq!(
            form.submit(&model, None).len(),
            1,
            "then Generate sends the job"
        );
    }

    #[test]
    fn dropped_images_are_uploaded_and_fill_the_views() {
        let model = model_with(vec![]);
        let mut form = ThreeDForm::default();
        let (actions, skipped) = form.add_files(vec![
            PathBuf::from("/tmp/front.png"),
            PathBuf::from("/tmp/notes.txt"),
        ]);
        assert_eq!(skipped, ["notes.txt"]);
        assert!(matches!(
            actions.as_slice(),
            [Action::Send(c)] if matches!(c.as_ref(), Command::UploadSource { path } if path == Path::new("/tmp/front.png"))
        ));
        assert_eq!(form.mode, ThreeDMode::Single, "one image: From an image");
        // Generate waits for the upload and says so at the images.
        assert!(form.submit(&model, None).is_empty());
        assert!(
            form.error(Field::ReferenceImages)
                .is_some_and(|m| m.contains("front.png"))
        );
        assert!(form.upload_finished(
            Path::new("/tmp/front.png"),
            &Ok("https://h/front.png".into())
        ));
        assert!(!form.upload_finished(Path::new("/tmp/other.png"), &Ok("https://h/x.png".into())));
        assert_eq!(form.request(None).reference_images, ["https://h/front.png"]);
        // A second image makes it a several-views model.
        let _ = form.add_files(vec![PathBuf::from("/tmp/side.jpg")]);
        assert_eq!(form.mode, ThreeDMode::Multi);
        let failed = form.upload_finished(Path::new("/tmp/side.jpg"), &Err("refused".into()));
        assert!(failed && form.uploading[0].error.is_some());
        assert!(
            form.submit(&model, None).is_empty(),
            "a failed upload blocks Generate"
        );
        form.uploading.clear();
        form.images.push("https://h/side.jpg".into());
        assert_eq!(form.submit(&model, None).len(), 1);
    }
}
