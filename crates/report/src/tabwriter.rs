//! Go's `text/tabwriter`, as kubectl uses it: cells end at a tab, a line's last cell is not part
//! of a column, and each column block (consecutive lines that have a cell in that column) is as
//! wide as its widest cell plus the padding, at least the minimum width. Padding is spaces, text
//! aligned left; no escapes, no HTML filtering.
//!
//! `kubectl get` uses the `github.com/liggitt/tabwriter` fork with `RememberWidths`: a column
//! never gets narrower than it was in an earlier flush, which keeps the rows of `get -w` aligned
//! under the header as long as no cell is wider than what came before.

/// A tabwriter's settings and, with `remember`, the widths of earlier flushes.
#[derive(Clone, Debug)]
pub(crate) struct TabWriter {
    minwidth: usize,
    padding: usize,
    remember: bool,
    /// Column widths by depth, kept between flushes when `remember` is set (`maxwidths`).
    maxwidths: Vec<usize>,
}

impl TabWriter {
    /// `kubectl get`'s printer (cli-runtime `printers/tabwriter.go`): minwidth 6, tabwidth 4,
    /// padding 3, `RememberWidths`.
    pub(crate) fn get() -> TabWriter {
        TabWriter {
            minwidth: 6,
            padding: 3,
            remember: true,
            maxwidths: Vec::new(),
        }
    }

    /// `kubectl describe`'s `tabbedString`: minwidth 0, tabwidth 8, padding 2, no flags.
    pub(crate) fn describe() -> TabWriter {
        TabWriter {
            minwidth: 0,
            padding: 2,
            remember: false,
            maxwidths: Vec::new(),
        }
    }

    /// Formats `text` (lines ending in `\n`, cells ending in `\t`) as one `Flush` and appends
    /// the result to `out`.
    pub(crate) fn flush(&mut self, text: &str, out: &mut String) {
        let lines: Vec<Vec<&str>> = text
            .split_inclusive('\n')
            .map(|l| l.strip_suffix('\n').unwrap_or(l).split('\t').collect())
            .collect();
        let ends_in_newline = text.ends_with('\n');
        let mut widths = Vec::new();
        self.format(&lines, 0, lines.len(), &mut widths, out);
        if !ends_in_newline && out.ends_with('\n') {
            out.pop();
        }
    }

    fn format(
        &mut self,
        lines: &[Vec<&str>],
        line0: usize,
        line1: usize,
        widths: &mut Vec<usize>,
        out: &mut String,
    ) {
        let column = widths.len();
        let mut start = line0;
        let mut this = line0;
        while this < line1 {
            if column + 1 >= lines[this].len() {
                this += 1;
                continue;
            }
            // A cell in this column: the lines before the block are printed first.
            write_lines(lines, start, this, widths, out);
            start = this;
            let mut width = self.minwidth;
            while this < line1 && column + 1 < lines[this].len() {
                width = width.max(lines[this][column].chars().count() + self.padding);
                this += 1;
            }
            if self.remember {
                if self.maxwidths.len() < widths.len() {
                    let from = self.maxwidths.len();
                    self.maxwidths.extend_from_slice(&widths[from..]);
                }
                if self.maxwidths.len() == widths.len() {
                    self.maxwidths.push(width);
                } else if self.maxwidths[column] > width {
                    width = self.maxwidths[column];
                } else {
                    self.maxwidths[column] = width;
                }
            }
            widths.push(width);
            self.format(lines, start, this, widths, out);
            widths.pop();
            start = this;
        }
        write_lines(lines, start, line1, widths, out);
    }
}

fn write_lines(
    lines: &[Vec<&str>],
    line0: usize,
    line1: usize,
    widths: &[usize],
    out: &mut String,
) {
    for line in &lines[line0..line1] {
        for (j, cell) in line.iter().enumerate() {
            out.push_str(cell);
            if let Some(&w) = widths.get(j) {
                if j + 1 < line.len() {
                    for _ in cell.chars().count()..w {
                        out.push(' ');
                    }
                }
            }
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flush(tw: &mut TabWriter, text: &str) -> String {
        let mut out = String::new();
        tw.flush(text, &mut out);
        out
    }

    #[test]
    fn columns_are_the_widest_cell_plus_padding() {
        // R46: kubectl's table is minwidth 6, padding 3; the last cell is not padded.
        let out = flush(
            &mut TabWriter::get(),
            "NAME\tREADY\tAGE\nkubia-liveness\t0/1\t5s\n",
        );
        assert_eq!(
            out,
            "NAME             READY   AGE\nkubia-liveness   0/1     5s\n"
        );
    }

    #[test]
    fn remembered_widths_never_shrink_between_flushes() {
        let mut tw = TabWriter::get();
        let first = flush(&mut tw, "A\tB\nlonger-name\tx\n");
        assert_eq!(first, "A             B\nlonger-name   x\n");
        // A narrower row keeps the earlier width; a wider one pushes the column out.
        assert_eq!(flush(&mut tw, "n\ty\n"), "n             y\n");
        assert_eq!(
            flush(&mut tw, "a-much-longer-name\tz\n"),
            "a-much-longer-name   z\n"
        );
        // Without the flag, each flush stands alone.
        let mut plain = TabWriter::describe();
        flush(&mut plain, "longer-name\tx\n");
        assert_eq!(flush(&mut plain, "n\ty\n"), "n  y\n");
    }

    #[test]
    fn a_line_without_a_tab_ends_the_column_block() {
        let text = "Name:\tkubia\nIPs:\n  IP:\t10.0.0.5\nContainers:\n";
        assert_eq!(
            flush(&mut TabWriter::describe(), text),
            "Name:  kubia\nIPs:\n  IP:  10.0.0.5\nContainers:\n"
        );
        // Consecutive lines with a cell share the column, whatever their indent.
        let text = "  IP:\t10.0.0.5\nStatus:\tRunning\n";
        assert_eq!(
            flush(&mut TabWriter::describe(), text),
            "  IP:    10.0.0.5\nStatus:  Running\n"
        );
    }

    #[test]
    fn nested_blocks_align_each_column_over_its_own_lines() {
        let text = "  Type\tReason\tAge\n  ----\t------\t---\n  Normal\tScheduled\t5m\nx\n";
        assert_eq!(
            flush(&mut TabWriter::describe(), text),
            "  Type    Reason     Age\n  ----    ------     ---\n  Normal  Scheduled  5m\nx\n"
        );
    }
}
