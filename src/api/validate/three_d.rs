//! Checks for a 3D job (POST /v1/generate/3d) from the body in `GenerationSpec::catalog`
//! and the chosen model: text mode needs a prompt; "From an image" exactly one reference
//! image; "From several images" 2–4; the model must serve the mode's catalog type; the
//! triangle target must be inside what the service accepts.

use super::{Field, FieldError, is_http_url, thousands};
use crate::api::catalog_jobs::{ThreeDMode, ThreeDRequest};
use crate::api::types::{
    CatalogJobRequest, DEFAULT_MAX_PROMPT_LENGTH, GenerationSpec, ModelRecord,
};

/// Fewest and most triangles a model may be asked for (`target_polycount`).
pub const THREE_D_POLYCOUNT_RANGE: (u32, u32) = (1_000, 300_000);
/// Most views in "From several images".
pub const THREE_D_MAX_VIEWS: usize = 4;

/// How many reference images a mode takes (fewest, most).
pub fn three_d_image_range(mode: ThreeDMode) -> (usize, usize) {
    match mode {
        ThreeDMode::Text => (0, 0),
        ThreeDMode::Single => (1, 1),
        ThreeDMode::Multi => (2, THREE_D_MAX_VIEWS),
    }
}

/// Every problem with a 3D job known before sending. `model` is `None` for Auto.
pub fn validate_three_d(spec: &GenerationSpec, model: Option<&ModelRecord>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let Some(CatalogJobRequest::ThreeD(request)) = spec.catalog.as_ref() else {
        errors.push(FieldError::new(
            Field::Operation,
            "The 3D model request has no details.",
        ));
        return errors;
    };
    let who = model.map(ModelRecord::display_name).unwrap_or("Auto");
    let catalog_type = request.mode.catalog_type();
    if let Some(model) = model
        && !model.types.is_empty()
        && !model.has_type(catalog_type)
    {
        errors.push(FieldError::new(
            Field::Model,
            format!(
                "{who} cannot make a 3D model {}; pick a model listed for that mode.",
                mode_phrase(request.mode)
            ),
        ));
    }
    prompt_errors(request, model, who, &mut errors);
    image_errors(request, &mut errors);
    if let Some(triangles) = request.target_polycount {
        let (min, max) = THREE_D_POLYCOUNT_RANGE;
        if !(min..=max).contains(&triangles) {
            errors.push(FieldError::new(
                Field::Polycount,
                format!(
                    "Pick between {} and {} triangles.",
                    thousands(u64::from(min)),
                    thousands(u64::from(max))
                ),
            ));
        }
    }
    if request
        .project_id
        .as_deref()
        .is_some_and(|p| p.trim().is_empty())
    {
        errors.push(FieldError::new(
            Field::Project,
            "The project id is blank; pick a project or leave it unset.",
        ));
    }
    errors
}

fn mode_phrase(mode: ThreeDMode) -> &'static str {
    match mode {
        ThreeDMode::Text => "from text",
        ThreeDMode::Single => "from an image",
        ThreeDMode::Multi => "from several images",
    }
}

fn prompt_errors(
    request: &ThreeDRequest,
    model: Option<&ModelRecord>,
    who: &str,
    errors: &mut Vec<FieldError>,
) {
    let chars = request.prompt.chars().count() as u64;
    let max_chars = model.map_or(DEFAULT_MAX_PROMPT_LENGTH, ModelRecord::max_prompt_chars);
    if request.mode == ThreeDMode::Text && request.prompt.trim().is_empty() {
        errors.push(FieldError::new(
            Field::Prompt,
            "Describe the object to make.",
        ));
    } else if chars > u64::from(max_chars) {
        errors.push(FieldError::new(
            Field::Prompt,
            format!(
                "Prompt is {} characters; {who} allows at most {}.",
                thousands(chars),
                thousands(u64::from(max_chars))
            ),
        ));
    }
}

fn image_errors(request: &ThreeDRequest, errors: &mut Vec<FieldError>) {
    let images: Vec<&String> = request
        .reference_images
        .iter()
        .filter(|u| !u.trim().is_empty())
        .collect();
    let (min, max) = three_d_image_range(request.mode);
    let count = images.len();
    let message = match request.mode {
        ThreeDMode::Text if count > 0 => {
            Some("From text takes no images; pick From an image instead.".to_owned())
        }
        ThreeDMode::Single if count == 0 => Some("Add the image to model.".to_owned()),
        ThreeDMode::Single if count > 1 => Some(format!(
            "From an image takes one image ({count} given); pick From several images for views."
        )),
        ThreeDMode::Multi if count < min => Some(format!(
            "Add at least {min} views of the object ({count} given)."
        )),
        ThreeDMode::Multi if count > max => Some(format!("At most {max} views ({count} given).")),
        _ => None,
    };
    if let Some(message) = message {
        errors.push(FieldError::new(Field::ReferenceImages, message));
        return;
    }
    if let Some(bad) = images.iter().find(|u| !is_http_url(u)) {
        errors.push(FieldError::new(
            Field::ReferenceImages,
            format!("“{}” is not a web address (http or https).", bad.trim()),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(request: ThreeDRequest) -> GenerationSpec {
        GenerationSpec::for_catalog(CatalogJobRequest::ThreeD(request))
    }

    fn fields(errors: &[FieldError]) -> Vec<Field> {
        errors.iter().map(|e| e.field).collect()
    }

    #[test]
    fn text_mode_needs_a_prompt_and_no_images() {
        let errors = validate_three_d(&spec(ThreeDRequest::default()), None);
        assert_eq!(fields(&errors), [Field::Prompt]);
        let ok = spec(ThreeDRequest {
            prompt: "a teapot".into(),
            ..ThreeDRequest::default()
        });
        assert!(validate_three_d(&ok, None).is_empty());
    }

    #[test]
    fn image_counts_follow_the_mode() {
        let one = vec!["https://h/a.png".to_owned()];
        let five: Vec<String> = (0..5).map(|i| format!("https://h/{i}.png")).collect();
        let single = |images: Vec<String>| {
            spec(ThreeDRequest {
                mode: ThreeDMode::Single,
                reference_images: images,
                ..ThreeDRequest::default()
            })
        };
        let multi = |images: Vec<String>| {
            spec(ThreeDRequest {
                mode: ThreeDMode::Multi,
                reference_images: images,
                ..ThreeDRequest::default()
            })
        };
        assert!(validate_three_d(&single(one.clone()), None).is_empty());
        assert_eq!(
            fields(&validate_three_d(&single(vec![]), None)),
            [Field::ReferenceImages]
        );
        assert_eq!(
            fields(&validate_three_d(&multi(one.clone()), None)),
            [Field::ReferenceImages]
        );
        assert!(validate_three_d(&multi(five[..2].to_vec()), None).is_empty());
        assert!(validate_three_d(&multi(five[..4].to_vec()), None).is_empty());
        assert_eq!(
            fields(&validate_three_d(&multi(five), None)),
            [Field::ReferenceImages]
        );
        assert_eq!(
            fields(&validate_three_d(
                &single(vec!["/home/me/a.png".into()]),
                None
            )),
            [Field::ReferenceImages]
        );
    }

    #[test]
    fn polycount_and_model_type_are_checked() {
        let mut request = ThreeDRequest {
            prompt: "a chair".into(),
            target_polycount: Some(500_000),
            ..ThreeDRequest::default()
        };
        assert_eq!(
            fields(&validate_three_d(&spec(request.clone()), None)),
            [Field::Polycount]
        );
        request.target_polycount = Some(100_000);
        let image_model = ModelRecord {
            identifier: "tripo/v2.5-image".into(),
            types: vec!["3d_image_to_model".into()],
            ..ModelRecord::default()
        };
        let errors = validate_three_d(&spec(request), Some(&image_model));
        assert_eq!(fields(&errors), [Field::Model]);
        assert!(
            errors[0].message.contains("from text"),
            "{}",
            errors[0].message
        );
    }
}
