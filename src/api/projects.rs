//! One project by id, rename, archive and unarchive (GET/PUT /v1/projects/:id,
//! PUT /v1/projects/:id/archive and /unarchive). The contract does not show the answers;
//! each is read as a project, enveloped or bare, like POST /v1/projects.

use super::client::{ApiClient, encode_segment};
use super::error::ApiError;
use super::types::{Project, ProjectResponse};

/// Longest project name the service accepts (after trimming), as on create.
pub const MAX_PROJECT_NAME_CHARS: usize = 100;

/// Why a project name cannot be sent; shown at the name field before any request.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProjectNameError {
    #[error("A project needs a name.")]
    Empty,
    #[error("A project name can be at most {MAX_PROJECT_NAME_CHARS} characters.")]
    TooLong,
}

/// The name as it will be sent (trimmed), or why it cannot be.
pub fn checked_project_name(name: &str) -> Result<&str, ProjectNameError> {
    let name = name.trim();
    match name.chars().count() {
        0 => Err(ProjectNameError::Empty),
        n if n > MAX_PROJECT_NAME_CHARS => Err(ProjectNameError::TooLong),
        _ => Ok(name),
    }
}

impl ApiClient {
    /// GET /v1/projects/:id.
    pub async fn project(&self, id: &str) -> Result<Project, ApiError> {
        let url = self.url(&format!("/v1/projects/{}", encode_segment(id)));
        self.project_answer(self.service.get(url)).await
    }

    /// PUT /v1/projects/:id `{name}`.
    pub async fn rename_project(&self, id: &str, name: &str) -> Result<Project, ApiError> {
        let url = self.url(&format!("/v1/projects/{}", encode_segment(id)));
        let request = self
            .service
            .put(url)
            .json(&serde_json::json!({ "name": name }));
        self.project_answer(request).await
    }

    /// PUT /v1/projects/:id/archive (`archived`) or /unarchive; both idempotent.
    pub async fn set_project_archived(
        &self,
        id: &str,
        archived: bool,
    ) -> Result<Project, ApiError> {
        let action = if archived { "archive" } else { "unarchive" };
        let url = self.url(&format!("/v1/projects/{}/{action}", encode_segment(id)));
        self.project_answer(self.service.put(url)).await
    }

    async fn project_answer(&self, request: reqwest::RequestBuilder) -> Result<Project, ApiError> {
        let response: ProjectResponse = self.json(request).await?;
        response
            .project
            .ok_or_else(|| ApiError::Decode("the project was missing from the answer".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_as_the_service_checks_them() {
        assert_eq!(checked_project_name("  Lookbook "), Ok("Lookbook"));
        assert_eq!(checked_project_name("   "), Err(ProjectNameError::Empty));
        assert_eq!(
            checked_project_name(&"é".repeat(101)),
            Err(ProjectNameError::TooLong)
        );
        assert!(checked_project_name(&"é".repeat(100)).is_ok());
    }

    #[test]
    fn archived_is_read_leniently_and_absent_means_not_archived() {
        let decode = |v: serde_json::Value| Project::from(v).archived;
        assert!(!decode(serde_json::json!({"id": "a", "name": "x"})));
        assert!(decode(serde_json::json!({"id": "a", "archived": true})));
        assert!(decode(serde_json::json!({"id": "a", "isArchived": true})));
        assert!(decode(
            serde_json::json!({"id": "a", "archived_at": "2026-01-01T00:00:00Z"})
        ));
        assert!(!decode(serde_json::json!({"id": "a", "archived_at": null})));
        assert!(!decode(
            serde_json::json!({"id": "a", "archived": false, "archived_at": "2026-01-01"})
        ));
    }
}
