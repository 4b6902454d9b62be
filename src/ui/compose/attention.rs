//! Where the eye goes after a refused Generate / Apply: the first field with a problem is
//! scrolled into view and given keyboard focus (once per refused click), and the line
//! under the button names that field instead of pointing "above".
//!
//! The form's widgets report themselves in drawing order ([`Attention::mark`]), so "first"
//! is what the artist sees first, whatever order the validator found the problems in.

use crate::api::validate::{Field, FieldError};
use egui::{Align, Response};

#[derive(Debug, Default)]
pub struct Attention {
    /// A submit was just refused: the first marked field with a problem takes the scroll
    /// and the focus, then this clears.
    pending: bool,
    /// The first field with a problem drawn this frame (what the line under the button
    /// names).
    first_shown: Option<Field>,
}

impl Attention {
    /// A submit was refused: bring the first bad field into view on the next drawing.
    pub fn submit_refused(&mut self) {
        self.pending = true;
    }

    /// Call before the form's fields are drawn.
    pub fn begin_form(&mut self) {
        self.first_shown = None;
    }

    /// Call after the form's fields are drawn: a field without a widget this frame does
    /// not keep the request for a later, surprising scroll.
    pub fn end_form(&mut self) {
        self.pending = false;
    }

    /// `response` is `field`'s control (a text box, a combo, a row's first chip) or, for
    /// a field without one, its message. `focus`: give it keyboard focus as well.
    pub fn mark(&mut self, field: &Field, has_problem: bool, response: &Response, focus: bool) {
        if !has_problem {
            return;
        }
        if self.first_shown.is_none() {
            self.first_shown = Some(*field);
        }
        if std::mem::take(&mut self.pending) {
            response.scroll_to_me(Some(Align::Center));
            if focus {
                response.request_focus();
            }
        }
    }

    /// The field the line under the button names: the first drawn with a problem, else
    /// the validator's first.
    pub fn first_field<'e>(&self, errors: &'e [FieldError]) -> Option<&'e FieldError> {
        self.first_shown
            .as_ref()
            .and_then(|shown| errors.iter().find(|e| e.field == *shown))
            .or_else(|| errors.first())
    }

    /// "Aspect ratio needs a choice." (and how many other fields need fixing), for the
    /// line under Generate / Apply; `None` when nothing is wrong.
    pub fn refusal_line(&self, errors: &[FieldError]) -> Option<String> {
        let first = self.first_field(errors)?;
        let mut fields: Vec<&Field> = Vec::new();
        for error in errors {
            if !fields.contains(&&error.field) {
                fields.push(&error.field);
            }
        }
        // Short enough for the one line under the button; the field has the full words.
        let line = field_problem(first);
        Some(match fields.len().saturating_sub(1) {
            0 => format!("{line}."),
            1 => format!("{line}, and one more field."),
            n => format!("{line}, and {n} more fields."),
        })
    }
}

/// What a person calls `field` on the form.
pub fn field_name(field: &Field) -> &'static str {
    match field {
        Field::Prompt => "Prompt",
        Field::Model => "Model",
        Field::AspectRatio => "Aspect ratio",
        Field::Resolution => "Resolution",
        Field::NumImages => "Images",
        Field::SourceImages => "Source images",
        Field::Project => "Project",
        Field::Duration => "Duration",
        Field::SourceImage => "Image to animate",
        Field::VisualDna => "Visual DNA",
        Field::ReferenceImages => "Reference images",
        Field::SceneCount => "Scenes",
        Field::SourceVideo => "Video to edit",
        Field::Operation => "Operation",
        Field::TargetFps => "Frame rate",
        Field::AudioFormat => "Audio format",
        Field::AudioPrompts => "Audio description",
        Field::LipsyncSource => "Speech",
        Field::FaceImage => "Face image URL",
        Field::MaskVideo => "Mask video URL",
        Field::GridPosition => "Placement",
        Field::VideoStrength => "Closeness to the source",
        Field::StartTime => "Start",
        Field::EndTime => "End",
        Field::Voice => "Voice",
        Field::Lyrics => "Lyrics",
        Field::VocalGender => "Vocal gender",
        Field::Language => "Language",
        Field::ReferenceVideos => "Reference clips",
        Field::ReferenceAudio => "Reference sounds",
        Field::FirstFrame => "First frame",
        Field::LastFrame => "Last frame",
        Field::Face => "Face",
        Field::VoiceAudio => "Audio file",
        Field::SpokenLine => "Line to say",
        Field::Moodboard => "Moodboard",
        Field::Polycount => "Triangles",
    }
}

/// Reports a Create form field's control to the form's attention: after a refused
/// Generate the first bad field drawn is scrolled into view and, with `focus`, focused.
pub fn mark_create(
    form: &mut super::form::ComposeForm,
    field: Field,
    response: &Response,
    focus: bool,
) {
    let has_problem = !form.messages_for(&field).is_empty();
    form.attention.mark(&field, has_problem, response, focus);
}

/// Longest field message repeated under the button; a longer one stays at its field.
const SHORT_MESSAGE_CHARS: usize = 40;

/// What is wrong at `error`'s field, naming it, without a final full stop.
fn field_problem(error: &FieldError) -> String {
    let name = field_name(&error.field);
    let is_choice = matches!(
        error.field,
        Field::Model
            | Field::AspectRatio
            | Field::Resolution
            | Field::NumImages
            | Field::Duration
            | Field::SceneCount
            | Field::Operation
            | Field::Voice
            | Field::VocalGender
            | Field::Language
            | Field::TargetFps
            | Field::AudioFormat
            | Field::GridPosition
    );
    let message = error.message.trim().trim_end_matches('.');
    if is_choice {
        format!("{name} needs a choice")
    } else if message.chars().count() <= SHORT_MESSAGE_CHARS && !message.is_empty() {
        format!("{name}: {message}")
    } else {
        format!("{name} needs fixing")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(field: Field, message: &str) -> FieldError {
        FieldError {
            field,
            message: message.to_owned(),
        }
    }

    #[test]
    fn the_line_names_the_first_field_drawn_and_counts_the_rest() {
        let errors = vec![
            error(Field::Prompt, "Enter a prompt."),
            error(Field::AspectRatio, "Pick the aspect ratio to reframe to."),
            error(Field::AspectRatio, "Another word on the ratio."),
        ];
        let mut attention = Attention::default();
        assert_eq!(
            attention.refusal_line(&errors).as_deref(),
            Some("Prompt: Enter a prompt, and one more field.")
        );
        // The ratio was drawn above the prompt: it is the one named.
        attention.first_shown = Some(Field::AspectRatio);
        assert_eq!(
            attention.refusal_line(&errors).as_deref(),
            Some("Aspect ratio needs a choice, and one more field.")
        );
        // A long message stays at its field.
        let long = [error(
            Field::FaceImage,
            "Add the face to swap in: drop an image or pick one from the Library.",
        )];
        assert_eq!(
            Attention::default().refusal_line(&long).as_deref(),
            Some("Face image URL needs fixing.")
        );
        assert_eq!(attention.refusal_line(&[]), None);
    }
}
