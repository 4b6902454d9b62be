//! The sandbox's assistant: deterministic, useful-looking Markdown answers for the
//! coding-assistant API (and the generation-side Creative chat). Every answer has a
//! paragraph that restates the question, a bulleted list of advice and a fenced,
//! language-tagged code block chosen by keywords in the prompt (Rust, Python, JavaScript,
//! SQL, shell; a CSS palette for image questions; Python otherwise). Attached images are
//! described by size and dominant colours (`crate::palette`).
//!
//! The same prompt and images always give the same text, so a streamed answer can be
//! compared with the synchronous one.

mod images;
mod topics;

// `NamedColour` is for callers that build `ImageFacts` themselves (the Creative chat).
#[allow(unused_imports)]
pub(crate) use images::{ImageFacts, NamedColour};

use topics::{Language, Task};

/// The part of the prompt quoted back in the opening sentence.
const MAX_QUOTED_CHARS: usize = 80;

/// The Markdown answer to `prompt` (the latest user message) with `images` attached.
pub(crate) fn write_answer(prompt: &str, images: &[ImageFacts]) -> String {
    let words = topics::words(prompt);
    let language = topics::language_of(&words);
    let task = topics::task_of(&words);
    let variant = (crate::sandbox::ids::fnv1a(prompt.trim().as_bytes()) % 3) as usize;

    let mut answer = String::new();
    answer.push_str(&opening(prompt, language, task, variant));
    answer.push_str("\n\n");
    if !images.is_empty() {
        answer.push_str(&images::describe(images));
        answer.push_str("\n\n");
    }
    match (language, images.first()) {
        (None, Some(first)) => push_palette_advice(&mut answer, first),
        _ => push_code_advice(&mut answer, language.unwrap_or(Language::Python), task),
    }
    answer.push('\n');
    answer.push_str(CLOSINGS[variant]);
    answer
}

const CLOSINGS: [&str; 3] = [
    "If you share the surrounding code, I can adapt this to it.",
    "Tell me which part you would like to go deeper on.",
    "Happy to turn this into a version that fits your project's conventions.",
];

fn opening(prompt: &str, language: Option<Language>, task: Task, variant: usize) -> String {
    let subject = quoted_subject(prompt);
    let first = match (variant, subject.is_empty()) {
        (_, true) => "Here is a small, self-contained starting point.".to_owned(),
        (0, false) => format!("Here is a practical way to approach {subject}."),
        (1, false) => format!("Good question: {subject} comes down to a few habits."),
        _ => format!("Let's work through {subject} step by step."),
    };
    let second = match language {
        Some(language) => language.remark().to_owned(),
        None => format!(
            "The focus below is {}, with an example you can run as is.",
            task.focus()
        ),
    };
    format!("{first} {second}")
}

/// The first sentence of the prompt, shortened at a word boundary, in quotes; empty when
/// the prompt has no words.
fn quoted_subject(prompt: &str) -> String {
    let first_sentence = prompt
        .split(['\n', '?', '!'])
        .map(str::trim)
        .find(|part| !part.is_empty())
        .unwrap_or("");
    let mut subject = String::new();
    for word in first_sentence.split_whitespace() {
        let extra = usize::from(!subject.is_empty()) + word.chars().count();
        if subject.chars().count() + extra > MAX_QUOTED_CHARS {
            subject.push('…');
            break;
        }
        if !subject.is_empty() {
            subject.push(' ');
        }
        subject.push_str(word);
    }
    let subject = subject.trim_end_matches(['.', ',', ';', ':']);
    if subject.is_empty() {
        String::new()
    } else {
        // Backticks would open a code span inside the quote.
        format!("“{}”", subject.replace('`', "'"))
    }
}

fn push_code_advice(answer: &mut String, language: Language, task: Task) {
    answer.push_str(&format!(
        "Things worth getting right when it comes to {}:\n\n",
        task.focus()
    ));
    for point in task.points() {
        answer.push_str(&format!("- {point}\n"));
    }
    answer.push_str(&format!("- {}\n\n", language.tip()));
    answer.push_str(&format!(
        "An example in {}:\n\n```{}\n{}\n```\n",
        language.display_name(),
        language.fence_tag(),
        topics::snippet(language, task).trim_end()
    ));
}

/// Image questions without a programming language: how to use the picture's colours, and
/// the colours as CSS custom properties.
fn push_palette_advice(answer: &mut String, image: &ImageFacts) {
    answer.push_str("How to put these colours to work:\n\n");
    let lead = image
        .dominant
        .first()
        .map_or("the main colour".to_owned(), |colour| colour.name.clone());
    answer.push_str(&format!(
        "- Use {lead} for large surfaces and backgrounds; it carries the mood of the image.\n"
    ));
    answer.push_str(
        "- Keep the less common colours for accents: buttons, links and highlights.\n\
         - Check text contrast against each background (WCAG AA asks for 4.5:1 for body text).\n\
         - Sample again after cropping: a crop can change which colour dominates.\n\n",
    );
    answer.push_str("The palette as CSS custom properties:\n\n```css\n:root {\n");
    for (index, colour) in image.dominant.iter().enumerate() {
        answer.push_str(&format!(
            "  --colour-{}: {}; /* {} */\n",
            index + 1,
            colour.hex,
            colour.name
        ));
    }
    answer.push_str(&format!(
        "  --image-aspect: {} / {};\n}}\n```\n",
        image.width, image.height
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_blocks(answer: &str) -> Vec<&str> {
        answer.split("```").skip(1).step_by(2).collect()
    }

    #[test]
    fn answers_have_a_paragraph_a_list_and_a_tagged_code_block() {
        let answer = write_answer("How do I read a file line by line in Rust?", &[]);
        assert!(
            answer.starts_with("Here is")
                || answer.starts_with("Good")
                || answer.starts_with("Let's")
        );
        assert!(
            answer.contains("“How do I read a file line by line in Rust”"),
            "{answer}"
        );
        assert!(answer.lines().filter(|line| line.starts_with("- ")).count() >= 3);
        let blocks = code_blocks(&answer);
        assert_eq!(blocks.len(), 1, "{answer}");
        assert!(blocks[0].starts_with("rust\n"), "{answer}");
        assert!(blocks[0].contains("BufReader"), "{answer}");
    }

    #[test]
    fn the_language_follows_the_prompt_and_falls_back_to_python() {
        let tag = |prompt: &str| {
            let answer = write_answer(prompt, &[]);
            code_blocks(&answer)[0]
                .lines()
                .next()
                .unwrap_or("")
                .to_owned()
        };
        assert_eq!(tag("sort an array in TypeScript"), "javascript");
        assert_eq!(tag("a SQL query counting orders per customer"), "sql");
        assert_eq!(tag("curl with retries in bash"), "bash");
        assert_eq!(tag("pytest fixtures"), "python");
        assert_eq!(tag("how should I structure this?"), "python");
    }

    #[test]
    fn answers_are_deterministic() {
        let prompt = "Parse JSON settings in Python";
        assert_eq!(write_answer(prompt, &[]), write_answer(prompt, &[]));
    }

    #[test]
    fn images_are_described_by_size_and_colours() {
        let facts = ImageFacts {
            width: 1920,
            height: 1080,
            dominant: vec![
                NamedColour {
                    name: "Teal".into(),
                    hex: "#008080".into(),
                },
                NamedColour {
                    name: "Sand".into(),
                    hex: "#C2B280".into(),
                },
            ],
        };
        let answer = write_answer("What colours are in this picture?", &[facts]);
        assert!(
            answer.contains("1920 × 1080 px (landscape, 16:9)"),
            "{answer}"
        );
        assert!(answer.contains("Teal (`#008080`)"), "{answer}");
        let blocks = code_blocks(&answer);
        assert!(blocks[0].starts_with("css\n"), "{answer}");
        assert!(blocks[0].contains("--colour-1: #008080;"), "{answer}");
    }

    #[test]
    fn an_empty_prompt_still_gets_an_answer() {
        let answer = write_answer("   ", &[]);
        assert!(answer.starts_with("Here is a small, self-contained starting point."));
        assert_eq!(code_blocks(&answer).len(), 1);
    }
}
