//! What the Create form remembers between runs (`UiMemory.panels["create"]`): the choices
//! an artist would be annoyed to make again, never sources, projects or errors.

use super::form::ComposeForm;
use crate::api::GenerationKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The key of Create's part of `UiMemory.panels`.
pub const PANEL_KEY: &str = "create";
/// Shortest gap between two writes of the settings file while the artist types.
pub const SAVE_INTERVAL_SECS: f64 = 1.0;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CreateMemory {
    pub kind: Option<GenerationKind>,
    pub prompt: String,
    /// `None` = Auto.
    pub model_id: Option<String>,
    pub aspect_ratio: Option<String>,
    pub resolution: Option<String>,
    pub num_images: Option<u32>,
    /// Cinematic preset per dimension (absent = Auto).
    pub cinematic: BTreeMap<String, String>,
    pub enhance_prompt: Option<bool>,
    pub duration_secs: Option<f64>,
    pub scene_count: Option<u32>,
    pub workflow: Option<crate::api::WorkflowType>,
    /// The form column's width as dragged with the splitter (absent: the window's default).
    pub form_width_pt: Option<f32>,
    /// Music, speech and sound effects' own fields (the chosen voice among them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audio: Option<super::audio_form::AudioMemory>,
}

impl CreateMemory {
    pub fn of(form: &ComposeForm) -> Self {
        Self {
            kind: Some(form.kind),
            prompt: form.prompt.clone(),
            model_id: form.model_id.clone(),
            aspect_ratio: Some(form.aspect_ratio.clone()),
            resolution: Some(form.resolution.clone()),
            num_images: Some(form.num_images),
            cinematic: form.cinematic.clone(),
            enhance_prompt: Some(form.enhance_prompt),
            duration_secs: Some(form.duration_secs),
            scene_count: Some(form.scene_count),
            workflow: Some(form.workflow),
            form_width_pt: None,
            audio: super::audio_form::AudioMemory::of(&form.audio),
        }
    }

    /// With the form column's width (`None`: the default for the window).
    pub fn with_form_width(self, form_width_pt: Option<f32>) -> Self {
        Self {
            form_width_pt: form_width_pt.filter(|w| w.is_finite() && *w > 0.0),
            ..self
        }
    }

    /// Nothing of the form was remembered (a first run; a dragged width alone does not
    /// count, so the Settings defaults still start the form).
    pub fn is_first_run(&self) -> bool {
        self.clone().with_form_width(None) == Self::default()
    }

    /// Read from the settings' panel value; anything unreadable gives the defaults.
    pub fn from_value(value: Option<&serde_json::Value>) -> Self {
        value
            .and_then(|v| match serde_json::from_value(v.clone()) {
                Ok(memory) => Some(memory),
                Err(error) => {
                    tracing::warn!("remembered Create form unreadable ({error}); using defaults");
                    None
                }
            })
            .unwrap_or_default()
    }

    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    /// Put the remembered choices into `form` (the model's own limits are applied later by
    /// `ComposeForm::normalize`, once the catalog is in).
    pub fn restore_into(&self, form: &mut ComposeForm) {
        if let Some(kind) = self.kind {
            form.kind = kind;
        }
        form.prompt = self.prompt.clone();
        form.model_id = self.model_id.clone();
        if let Some(aspect_ratio) = &self.aspect_ratio {
            form.aspect_ratio = aspect_ratio.clone();
        }
        if let Some(resolution) = &self.resolution {
            form.resolution = resolution.clone();
        }
        if let Some(num_images) = self.num_images {
            form.num_images = num_images.max(1);
        }
        form.cinematic = self.cinematic.clone();
        if let Some(audio) = &self.audio {
            audio.restore_into(&mut form.audio);
        }
        if let Some(enhance_prompt) = self.enhance_prompt {
            form.enhance_prompt = enhance_prompt;
        }
        if let Some(secs) = self.duration_secs.filter(|d| d.is_finite() && *d > 0.0) {
            form.duration_secs = secs;
        }
        if let Some(count) = self.scene_count {
            form.scene_count = count;
        }
        if let Some(workflow) = self.workflow {
            form.workflow = workflow;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_the_form_choices() {
        let mut form = ComposeForm {
            kind: GenerationKind::ImageEdit,
            prompt: "a quiet harbour".into(),
            model_id: Some("flux".into()),
            aspect_ratio: "16:9".into(),
            resolution: "2K".into(),
            num_images: 3,
            enhance_prompt: false,
            ..ComposeForm::default()
        };
        form.cinematic.insert("lighting".into(), "golden".into());
        let value = CreateMemory::of(&form)
            .with_form_width(Some(512.0))
            .to_value();
        let mut restored = ComposeForm::default();
        let memory = CreateMemory::from_value(Some(&value));
        memory.restore_into(&mut restored);
        assert_eq!(CreateMemory::of(&restored), CreateMemory::of(&form));
        assert_eq!(memory.form_width_pt, Some(512.0));
    }

    #[test]
    fn unreadable_memory_gives_defaults() {
        let value = serde_json::json!({"prompt": 42});
        assert_eq!(
            CreateMemory::from_value(Some(&value)),
            CreateMemory::default()
        );
    }
}
