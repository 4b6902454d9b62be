//! Settings and the account: the low-balance warning, Test connection, the thumbnail cache
//! limit checked as typed and remembered, and a submit refused for credits naming how many
//! are missing. egui_kittest flows against the real studio on its embedded loopback sandbox.

use crate::support;
use support::{click_button, step_until, steps, studio, type_prompt, wait_for_service_data};

use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use framewright::engine::JobPhase;
use framewright::ui::View;

type Studio = egui_kittest::Harness<'static, framewright::ui::StudioApp>;

fn set_sandbox_credits(harness: &mut Studio, total: f64) {
    harness
        .state()
        .session()
        .local_sandbox()
        .expect("the local sandbox runs")
        .set_credits(total);
}

fn low_balance_toasts(harness: &Studio) -> usize {
    harness
        .state()
        .toast_texts()
        .iter()
        .filter(|t| t.starts_with("Low balance"))
        .count()
}

fn has_label_starting(harness: &Studio, prefix: &str) -> bool {
    harness
        .query_all_by(|node| {
            node.label()
                .or_else(|| node.value())
                .is_some_and(|l| l.starts_with(prefix))
        })
        .next()
        .is_some()
}

#[test]
fn a_balance_below_the_threshold_warns_once_with_a_toast_and_a_badge() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Settings);
    wait_for_service_data(&mut harness);
    // The sandbox starts well above the default threshold of 100 credits.
    assert_eq!(low_balance_toasts(&harness), 0);
    assert!(harness.query_by_label("Low balance").is_none());

    set_sandbox_credits(&mut harness, 40.0);
    click_button(&mut harness, "Refresh balance");
    step_until(&mut harness, "the low-balance toast", |h| {
        low_balance_toasts(h) == 1
    });
    steps(&mut harness, 2);
    harness.get_by_label("Low balance");
    let toast = harness
        .state()
        .toast_texts()
        .into_iter()
        .find(|t| t.starts_with("Low balance"))
        .expect("toast");
    assert!(toast.contains("40 credits left"), "{toast}");
    assert!(toast.contains("100 credits"), "{toast}");

    // Still low on the next refresh: the badge stays, no second toast.
    set_sandbox_credits(&mut harness, 30.0);
    click_button(&mut harness, "Refresh balance");
    step_until(&mut harness, "the new balance", |h| {
        has_label_starting(h, "30 credits")
    });
    steps(&mut harness, 2);
    assert_eq!(low_balance_toasts(&harness), 1);
    harness.get_by_label("Low balance");

    // Turning the warning off (0) removes the badge.
    support::replace_field_text(&mut harness, "Low-balance warning threshold", "0");
    steps(&mut harness, 3);
    assert_eq!(
        harness
            .state()
            .session()
            .settings()
            .low_balance_threshold_credits,
        0.0
    );
    assert!(harness.query_by_label("Low balance").is_none());
}

#[test]
fn test_connection_reports_the_key_latency_and_credits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Settings);
    wait_for_service_data(&mut harness);
    set_sandbox_credits(&mut harness, 1234.0);
    click_button(&mut harness, "Test connection");
    step_until(&mut harness, "the connection test's outcome", |h| {
        has_label_starting(h, "Connected: key accepted")
    });
    let outcome = harness
        .query_all_by(|node| {
            node.label()
                .or_else(|| node.value())
                .is_some_and(|l| l.starts_with("Connected: key accepted"))
        })
        .next()
        .expect("the outcome line")
        .accesskit_node();
    let text = outcome
        .label()
        .or_else(|| outcome.value())
        .unwrap_or_default();
    assert!(text.contains(" ms · "), "{text}");
    assert!(text.ends_with("1,234 credits available"), "{text}");
}

#[test]
fn a_submit_refused_for_credits_says_how_many_are_missing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = studio(&dir, View::Create);
    wait_for_service_data(&mut harness);
    set_sandbox_credits(&mut harness, 1.0);
    type_prompt(&mut harness, "a lighthouse at dusk");
    harness
        .get_by(|node| {
            node.role() == Role::Button && node.label().is_some_and(|l| l.starts_with("Generate"))
        })
        .click_accesskit();
    step_until(&mut harness, "the refusal", |h| {
        h.state()
            .jobs()
            .first()
            .is_some_and(|job| matches!(job.phase, JobPhase::Rejected { .. }))
    });
    steps(&mut harness, 3);
    let job = harness.state().jobs()[0].clone();
    let JobPhase::Rejected { error } = &job.phase else {
        unreachable!()
    };
    assert_eq!(error.code(), Some("INSUFFICIENT_CREDITS"));
    let missing = framewright::ui::account::missing_credits(error, job.credits_estimate, Some(1.0))
        .expect("the refusal names a shortfall");
    assert!(missing.missing > 0.0);
    let expected = framewright::ui::account::missing_credits_text(&missing);
    assert!(
        expected.contains("1 credit is available"),
        "the sandbox names the balance: {expected}"
    );
    // The canvas (and the tray) show it in those words.
    assert!(
        has_label_starting(&harness, &expected),
        "expected “{expected}” on screen"
    );
}

#[test]
fn the_thumbnail_cache_limit_is_checked_as_typed_and_remembered() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Tall enough that Settings › Storage is on screen without scrolling.
    let mut harness = support::studio_sized(&dir, View::Settings, egui::vec2(1440.0, 2400.0));
    steps(&mut harness, 3);
    let field = "Thumbnail cache limit in MB";
    let limit_mb = |h: &Studio| h.state().session().settings().thumbnail_cache_mb;
    assert_eq!(limit_mb(&harness), 512, "the default");

    support::replace_field_text(&mut harness, field, "5");
    steps(&mut harness, 2);
    assert!(
        has_label_starting(&harness, "Enter a whole number of MB from 10"),
        "a limit below the minimum is refused at the field"
    );
    assert_eq!(limit_mb(&harness), 512, "nothing saved while it is invalid");

    harness.get_by_label(field).type_text("0");
    steps(&mut harness, 2);
    assert!(!has_label_starting(&harness, "Enter a whole number of MB"));
    assert_eq!(limit_mb(&harness), 50);
    let paths = framewright::settings::AppPaths::under(dir.path());
    let (saved, _) = framewright::settings::Settings::load_or_recover(&paths.settings_file());
    assert_eq!(
        saved.thumbnail_cache_mb, 50,
        "remembered in the settings file"
    );
}

#[test]
fn clearing_the_cache_empties_the_thumbnail_budget_it_counts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut harness = support::studio_sized(&dir, View::Create, egui::vec2(1440.0, 2400.0));
    let seeded = harness
        .state()
        .session()
        .local_sandbox()
        .expect("the local sandbox runs")
        .seed_media(6, None);
    assert_eq!(seeded, 6);
    wait_for_service_data(&mut harness);
    click_button(&mut harness, "Library");
    step_until(&mut harness, "the library's thumbnails on disk", |h| {
        h.state().library_item_ids().len() >= 6 && h.state().thumbnail_cache_bytes() > 0
    });

    click_button(&mut harness, "Settings");
    step_until(&mut harness, "the cache measured", |h| {
        h.query_by_role_and_label(Role::Button, "Clear cache…")
            .is_some_and(|b| !b.accesskit_node().is_disabled())
    });
    click_button(&mut harness, "Clear cache…");
    step_until(&mut harness, "the confirmation", |h| {
        h.query_by_role_and_label(Role::Button, "Clear cache")
            .is_some()
    });
    click_button(&mut harness, "Clear cache");
    step_until(&mut harness, "the cache cleared", |h| {
        h.state()
            .toast_texts()
            .iter()
            .any(|t| t.starts_with("Cache cleared"))
    });
    // The thumbnails' files are gone, so they no longer count against the budget (they
    // would make the cache evict what is written next too early).
    step_until(&mut harness, "the thumbnail cache read again", |h| {
        h.state().thumbnail_cache_bytes() == 0
    });
    let paths = framewright::settings::AppPaths::under(dir.path());
    let size = framewright::engine::storage::measure(&paths.cache_dir).expect("measure");
    assert_eq!(size.files, 0, "every cached file was deleted");
}
