//! Markdown as a tree of blocks holding styled runs of text: what the studio's own
//! renderer (`ui::formatted_text`) draws in the document preview and in chat, so bold is
//! drawn in the bold face, headings and table headers are set apart. Pure: no egui.
//!
//! The dialect is the editor's ([`super::parser_options`]: tables, strikethrough, task
//! lists). Images show their alt text; raw HTML shows as the text it is.

use pulldown_cmark::{Alignment, Event, HeadingLevel, Parser, Tag, TagEnd};

/// How a run of text is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStyle {
    pub bold: bool,
    pub italic: bool,
    pub strikethrough: bool,
    /// Inline code (`like this`).
    pub code: bool,
}

/// A run of text in one style, maybe a link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub text: String,
    pub style: RunStyle,
    /// Where the link goes, for a link's text.
    pub link: Option<String>,
}

/// The text of a paragraph, heading or table cell.
pub type Inline = Vec<Run>;

/// A table column's alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnAlign {
    Left,
    Centre,
    Right,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// `level` 1 (largest) to 6.
    Heading {
        level: u8,
        text: Inline,
    },
    Paragraph(Inline),
    List {
        /// The first number of an ordered list; `None` for bullets.
        start: Option<u64>,
        items: Vec<ListItem>,
    },
    Quote(Vec<Block>),
    /// A code block's text (no trailing newline).
    Code(String),
    Table {
        columns: Vec<ColumnAlign>,
        header: Vec<Inline>,
        rows: Vec<Vec<Inline>>,
    },
    /// A thematic break (`---`).
    Rule,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListItem {
    /// A task list item's box: `Some(true)` when ticked.
    pub checked: Option<bool>,
    pub blocks: Vec<Block>,
}

/// `markdown` as blocks.
pub fn parse(markdown: &str) -> Vec<Block> {
    let mut builder = Builder::default();
    for event in Parser::new_ext(markdown, super::parser_options()) {
        builder.event(event);
    }
    builder.finish()
}

/// The plain text of `inline` (what a person reads, without the markup).
pub fn plain_text(inline: &[Run]) -> String {
    inline.iter().map(|run| run.text.as_str()).collect()
}

enum Container {
    Root(Vec<Block>),
    Quote(Vec<Block>),
    List {
        start: Option<u64>,
        items: Vec<ListItem>,
    },
    Item(ListItem),
}

enum InlineKind {
    Paragraph,
    Heading(u8),
    Cell,
}

#[derive(Default)]
struct TableBuild {
    columns: Vec<ColumnAlign>,
    header: Vec<Inline>,
    rows: Vec<Vec<Inline>>,
    row: Vec<Inline>,
}

#[derive(Default)]
struct Builder {
    containers: Vec<Container>,
    inline: Option<(InlineKind, Inline)>,
    table: Option<TableBuild>,
    code: Option<String>,
    bold: u32,
    italic: u32,
    strikethrough: u32,
    link: Option<String>,
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

impl Builder {
    fn style(&self) -> RunStyle {
        RunStyle {
            bold: self.bold > 0,
            italic: self.italic > 0,
            strikethrough: self.strikethrough > 0,
            code: false,
        }
    }

    fn push_block(&mut self, block: Block) {
        if self.containers.is_empty() {
            self.containers.push(Container::Root(Vec::new()));
        }
        match self.containers.last_mut() {
            Some(Container::Root(blocks) | Container::Quote(blocks)) => blocks.push(block),
            Some(Container::Item(item)) => item.blocks.push(block),
            // Only items sit in a list; anything else there starts an item of its own.
            Some(Container::List { items, .. }) => items.push(ListItem {
                checked: None,
                blocks: vec![block],
            }),
            None => {}
        }
    }

    /// Text outside a paragraph (a tight list item's) ends up in one of its own.
    fn flush_loose_text(&mut self) {
        if matches!(self.inline, Some((InlineKind::Paragraph, _))) {
            self.end_inline();
        }
    }

    fn end_inline(&mut self) {
        let Some((kind, runs)) = self.inline.take() else {
            return;
        };
        match kind {
            InlineKind::Paragraph if runs.iter().all(|r| r.text.trim().is_empty()) => {}
            InlineKind::Paragraph => self.push_block(Block::Paragraph(runs)),
            InlineKind::Heading(level) => self.push_block(Block::Heading { level, text: runs }),
            InlineKind::Cell => {
                if let Some(table) = self.table.as_mut() {
                    table.row.push(runs);
                }
            }
        }
    }

    fn push_text(&mut self, text: &str, style: RunStyle) {
        if let Some(code) = self.code.as_mut() {
            code.push_str(text);
            return;
        }
        let link = self.link.clone();
        let (_, runs) = self
            .inline
            .get_or_insert_with(|| (InlineKind::Paragraph, Vec::new()));
        match runs.last_mut() {
            Some(last) if last.style == style && last.link == link => last.text.push_str(text),
            _ => runs.push(Run {
                text: text.to_owned(),
                style,
                link,
            }),
        }
    }

    fn event(&mut self, event: Event) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.push_text(&text, self.style()),
            Event::Code(text) => {
                let style = RunStyle {
                    code: true,
                    ..self.style()
                };
                self.push_text(&text, style);
            }
            Event::Html(text) | Event::InlineHtml(text) => {
                self.push_text(text.trim_end_matches('\n'), self.style())
            }
            Event::SoftBreak => self.push_text(" ", self.style()),
            Event::HardBreak => self.push_text("\n", self.style()),
            Event::Rule => {
                self.flush_loose_text();
                self.push_block(Block::Rule);
            }
            Event::TaskListMarker(checked) => {
                if let Some(Container::Item(item)) = self.containers.last_mut() {
                    item.checked = Some(checked);
                }
            }
            Event::InlineMath(text) | Event::DisplayMath(text) => {
                self.push_text(&text, self.style())
            }
            Event::FootnoteReference(label) => self.push_text(&format!("[{label}]"), self.style()),
        }
    }

    fn start(&mut self, tag: Tag) {
        match tag {
            Tag::Paragraph => {
                self.flush_loose_text();
                self.inline = Some((InlineKind::Paragraph, Vec::new()));
            }
            Tag::Heading { level, .. } => {
                self.flush_loose_text();
                self.inline = Some((InlineKind::Heading(heading_level(level)), Vec::new()));
            }
            Tag::BlockQuote(_) => {
                self.flush_loose_text();
                self.containers.push(Container::Quote(Vec::new()));
            }
            Tag::CodeBlock(_) => {
                self.flush_loose_text();
                self.code = Some(String::new());
            }
            Tag::List(start) => {
                self.flush_loose_text();
                self.containers.push(Container::List {
                    start,
                    items: Vec::new(),
                });
            }
            Tag::Item => self.containers.push(Container::Item(ListItem::default())),
            Tag::Table(alignments) => {
                self.flush_loose_text();
                self.table = Some(TableBuild {
                    columns: alignments
                        .into_iter()
                        .map(|a| match a {
                            Alignment::Center => ColumnAlign::Centre,
                            Alignment::Right => ColumnAlign::Right,
                            Alignment::Left | Alignment::None => ColumnAlign::Left,
                        })
                        .collect(),
                    ..TableBuild::default()
                });
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(table) = self.table.as_mut() {
                    table.row.clear();
                }
            }
            Tag::TableCell => self.inline = Some((InlineKind::Cell, Vec::new())),
            Tag::Emphasis => self.italic += 1,
            Tag::Strong => self.bold += 1,
            Tag::Strikethrough => self.strikethrough += 1,
            Tag::Link { dest_url, .. } => self.link = Some(dest_url.into_string()),
            Tag::HtmlBlock => self.flush_loose_text(),
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::TableCell => self.end_inline(),
            TagEnd::HtmlBlock => self.end_inline(),
            TagEnd::BlockQuote(_) => {
                self.flush_loose_text();
                if let Some(Container::Quote(blocks)) = self.containers.pop() {
                    self.push_block(Block::Quote(blocks));
                }
            }
            TagEnd::CodeBlock => {
                if let Some(code) = self.code.take() {
                    let code = code.strip_suffix('\n').unwrap_or(&code).to_owned();
                    self.push_block(Block::Code(code));
                }
            }
            TagEnd::List(_) => {
                self.flush_loose_text();
                if let Some(Container::List { start, items }) = self.containers.pop() {
                    self.push_block(Block::List { start, items });
                }
            }
            TagEnd::Item => {
                self.flush_loose_text();
                if let Some(Container::Item(item)) = self.containers.pop() {
                    match self.containers.last_mut() {
                        Some(Container::List { items, .. }) => items.push(item),
                        _ => {
                            for block in item.blocks {
                                self.push_block(block);
                            }
                        }
                    }
                }
            }
            TagEnd::TableHead => {
                if let Some(table) = self.table.as_mut() {
                    table.header = std::mem::take(&mut table.row);
                }
            }
            TagEnd::TableRow => {
                if let Some(table) = self.table.as_mut() {
                    let row = std::mem::take(&mut table.row);
                    table.rows.push(row);
                }
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    self.push_block(Block::Table {
                        columns: table.columns,
                        header: table.header,
                        rows: table.rows,
                    });
                }
            }
            TagEnd::Emphasis => self.italic = self.italic.saturating_sub(1),
            TagEnd::Strong => self.bold = self.bold.saturating_sub(1),
            TagEnd::Strikethrough => self.strikethrough = self.strikethrough.saturating_sub(1),
            TagEnd::Link => self.link = None,
            _ => {}
        }
    }

    fn finish(mut self) -> Vec<Block> {
        self.end_inline();
        if let Some(code) = self.code.take() {
            self.push_block(Block::Code(code));
        }
        // Unclosed containers (a reply still streaming in) close in order.
        let mut blocks = Vec::new();
        while let Some(container) = self.containers.pop() {
            let done = match container {
                Container::Root(mut root) => {
                    root.append(&mut blocks);
                    blocks = root;
                    continue;
                }
                Container::Quote(mut inner) => {
                    inner.append(&mut blocks);
                    Block::Quote(inner)
                }
                Container::List { start, mut items } => {
                    if !blocks.is_empty() {
                        items.push(ListItem {
                            checked: None,
                            blocks: std::mem::take(&mut blocks),
                        });
                    }
                    Block::List { start, items }
                }
                Container::Item(mut item) => {
                    item.blocks.append(&mut blocks);
                    Block::List {
                        start: None,
                        items: vec![item],
                    }
                }
            };
            blocks = vec![done];
        }
        blocks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, style: RunStyle) -> Run {
        Run {
            text: text.to_owned(),
            style,
            link: None,
        }
    }

    const PLAIN: RunStyle = RunStyle {
        bold: false,
        italic: false,
        strikethrough: false,
        code: false,
    };
    const BOLD: RunStyle = RunStyle {
        bold: true,
        ..PLAIN
    };

    #[test]
    fn bold_runs_are_marked_bold() {
        let blocks = parse("Call **at six**, *sharp* and `early`.");
        let [Block::Paragraph(runs)] = blocks.as_slice() else {
            panic!("{blocks:?}");
        };
        assert_eq!(runs[0], run("Call ", PLAIN));
        assert_eq!(runs[1], run("at six", BOLD));
        assert!(runs[3].style.italic && !runs[3].style.bold);
        assert!(runs[5].style.code);
        assert_eq!(plain_text(runs), "Call at six, sharp and early.");
    }

    #[test]
    fn headings_lists_quotes_and_tables() {
        let blocks = parse(
            "# Shoot\n\n- one\n- **two**\n  1. nested\n\n> quoted\n\n| Role | Name |\n| --- | ---: |\n| Camera | Bo |\n\n---\n",
        );
        assert!(
            matches!(&blocks[0], Block::Heading { level: 1, text } if plain_text(text) == "Shoot")
        );
        let Block::List { start: None, items } = &blocks[1] else {
            panic!("{:?}", blocks[1]);
        };
        assert_eq!(items.len(), 2);
        assert!(
            matches!(&items[1].blocks[0], Block::Paragraph(runs) if runs[0] == run("two", BOLD))
        );
        assert!(matches!(
            &items[1].blocks[1],
            Block::List { start: Some(1), .. }
        ));
        assert!(matches!(&blocks[2], Block::Quote(inner) if inner.len() == 1));
        let Block::Table {
            columns,
            header,
            rows,
        } = &blocks[3]
        else {
            panic!("{:?}", blocks[3]);
        };
        assert_eq!(columns, &[ColumnAlign::Left, ColumnAlign::Right]);
        assert_eq!(plain_text(&header[1]), "Name");
        assert_eq!(rows.len(), 1);
        assert_eq!(plain_text(&rows[0][0]), "Camera");
        assert_eq!(blocks[4], Block::Rule);
    }

    #[test]
    fn links_tasks_code_and_unfinished_text() {
        let blocks =
            parse("[the call sheet](https://e.example/call)\n\n- [x] done\n- [ ] not yet\n");
        let Block::Paragraph(runs) = &blocks[0] else {
            panic!();
        };
        assert_eq!(runs[0].link.as_deref(), Some("https://e.example/call"));
        let Block::List { items, .. } = &blocks[1] else {
            panic!();
        };
        assert_eq!(items[0].checked, Some(true));
        assert_eq!(items[1].checked, Some(false));
        assert_eq!(
            parse("Before\n\n    indented code\n"),
            vec![
                Block::Paragraph(vec![run("Before", PLAIN)]),
                Block::Code("indented code".to_owned())
            ]
        );
        // A reply cut off mid-list still shows what arrived.
        let blocks = parse("> - half a");
        assert!(
            matches!(&blocks[0], Block::Quote(inner) if matches!(&inner[0], Block::List { .. }))
        );
        assert!(parse("").is_empty());
    }
}
