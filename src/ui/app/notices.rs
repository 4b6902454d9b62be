//! Completion notices: a desktop notification when a job finishes while the window is in
//! the background (sent by the engine, so the UI never waits on D-Bus), its click bringing
//! the studio forward on the result, and the running count in the window title.

use super::StudioApp;
use crate::engine::notices::Notice;
use crate::engine::{Command, JobPhase, JobRecord, LocalJobId};
use crate::ui::job_wording;
use crate::ui::model::{ResultAction, ResultRef};

/// "Framewright", or "Framewright — 2 running" while jobs run.
pub fn window_title(running: usize) -> String {
    if running == 0 {
        "Framewright".to_owned()
    } else {
        format!("Framewright — {running} running")
    }
}

/// The notification for a job that just finished, if it is worth one.
pub fn notice_for(job: &JobRecord, model_name: &str) -> Option<Notice> {
    let title = job_wording::job_title(job.spec.kind.label(), model_name, &job.spec.request.prompt);
    let (summary, image_url) = match &job.phase {
        JobPhase::Completed => {
            let result = job.result.as_ref();
            let image =
                result.and_then(|r| r.thumbnail_url.clone().or_else(|| r.urls.first().cloned()));
            ("Your result is ready", image)
        }
        JobPhase::Failed { .. } => ("A job failed", None),
        _ => return None,
    };
    Some(Notice {
        local_id: job.local_id,
        summary: summary.to_owned(),
        body: title,
        image_url,
    })
}

impl StudioApp {
    /// Before `record` replaces the model's copy: notify when it finished just now while
    /// the window is not focused.
    pub(super) fn notice_if_in_background(&mut self, ctx: &egui::Context, record: &JobRecord) {
        let was_running = self
            .model
            .jobs
            .get(&record.local_id)
            .is_some_and(|j| !j.phase.is_finished());
        let focused = ctx.input(|i| i.viewport().focused);
        if !was_running || focused != Some(false) {
            return;
        }
        let name = job_wording::model_name(record, &self.model);
        if let Some(notice) = notice_for(record, &name) {
            self.send(Command::Notify(notice));
        }
    }

    /// The notification was clicked: bring the studio forward on the result.
    pub(super) fn notice_clicked(&mut self, ctx: &egui::Context, local_id: LocalJobId) {
        ctx.send_viewport_cmd(egui::ViewportCommand::Focus);
        let has_result = self
            .model
            .jobs
            .get(&local_id)
            .and_then(|j| j.result.as_ref())
            .is_some_and(|r| !r.urls.is_empty());
        if has_result {
            self.apply_result_action(
                ctx,
                ResultAction::Open {
                    list: vec![ResultRef::Job { local_id, index: 0 }],
                    index: 0,
                },
            );
        }
    }

    /// Keeps the window title's running count current (sent only when it changes).
    pub(super) fn update_window_title(&mut self, ctx: &egui::Context) {
        let title = window_title(self.model.running_count());
        if title != self.window_title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.window_title = title;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_counts_running_jobs() {
        assert_eq!(window_title(0), "Framewright");
        assert_eq!(window_title(2), "Framewright — 2 running");
    }
}
