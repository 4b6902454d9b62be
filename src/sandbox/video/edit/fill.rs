//! Smooth fills of holes in a plane from the pixels around them: the watermark's rectangle
//! and inpaint masks. Each hole pixel is the mean of a horizontal and a vertical linear
//! interpolation between the nearest known pixels on its row and column (a cheap membrane
//! that keeps gradients across the hole and leaves no seams at its edge).

/// Fills the rectangle `(left, top, width, height)` of a plane `stride` wide and `rows`
/// tall from the pixels just outside it (the frame's edge stands in where there are none).
pub(super) fn fill_rect(
    plane: &mut [u8],
    stride: usize,
    rows: usize,
    (left, top, width, height): (usize, usize, usize, usize),
) {
    let right = (left + width).min(stride);
    let bottom = (top + height).min(rows);
    if left >= right || top >= bottom {
        return;
    }
    // Known borders: the column left/right of the hole and the row above/below, per position.
    let column = |x: usize, y: usize| plane[y * stride + x];
    let left_col: Vec<i32> = (top..bottom)
        .map(|y| i32::from(column(left.saturating_sub(1), y)))
        .collect();
    let right_col: Vec<i32> = (top..bottom)
        .map(|y| i32::from(column(right.min(stride - 1), y)))
        .collect();
    let top_row: Vec<i32> = (left..right)
        .map(|x| i32::from(column(x, top.saturating_sub(1))))
        .collect();
    let bottom_row: Vec<i32> = (left..right)
        .map(|x| i32::from(column(x, bottom.min(rows - 1))))
        .collect();
    let (span_x, span_y) = ((right - left + 1) as i32, (bottom - top + 1) as i32);
    for (ry, y) in (top..bottom).enumerate() {
        let wy = ry as i32 + 1;
        for (rx, x) in (left..right).enumerate() {
            let wx = rx as i32 + 1;
            let horizontal = (left_col[ry] * (span_x - wx) + right_col[ry] * wx) / span_x;
            let vertical = (top_row[rx] * (span_y - wy) + bottom_row[rx] * wy) / span_y;
            plane[y * stride + x] = ((horizontal + vertical + 1) / 2).clamp(0, 255) as u8;
        }
    }
}

/// Fills every pixel where `mask` is true (same size as the plane) from the nearest known
/// pixels on its row and column. A row or column with no known pixel uses the other
/// direction only; a hole covering everything becomes the plane's mean.
pub(super) fn fill_masked(plane: &mut [u8], width: usize, height: usize, mask: &[bool]) {
    if plane.len() != width * height || mask.len() != plane.len() || !mask.contains(&true) {
        return;
    }
    let known: Vec<u32> = plane
        .iter()
        .zip(mask)
        .filter(|(_, m)| !**m)
        .map(|(p, _)| u32::from(*p))
        .collect();
    let mean = if known.is_empty() {
        128
    } else {
        (known.iter().sum::<u32>() / known.len() as u32) as i32
    };
    // Sum and count of the directional estimates per pixel.
    let mut sum = vec![0i32; plane.len()];
    let mut count = vec![0u8; plane.len()];
    let lines = [
        (width, height, 1usize, width),
        (height, width, width, 1usize),
    ];
    for (len, lines_n, step, line_stride) in lines {
        for line in 0..lines_n {
            let base = line * line_stride;
            let at = |i: usize| base + i * step;
            let mut i = 0;
            while i < len {
                if !mask[at(i)] {
                    i += 1;
                    continue;
                }
                let start = i;
                while i < len && mask[at(i)] {
                    i += 1;
                }
                let before = start.checked_sub(1).map(|j| i32::from(plane[at(j)]));
                let after = (i < len).then(|| i32::from(plane[at(i)]));
                let (a, b) = match (before, after) {
                    (Some(a), Some(b)) => (a, b),
                    (Some(a), None) => (a, a),
                    (None, Some(b)) => (b, b),
                    (None, None) => continue,
                };
                let span = (i - start + 1) as i32;
                for (k, j) in (start..i).enumerate() {
                    let w = k as i32 + 1;
                    sum[at(j)] += (a * (span - w) + b * w) / span;
                    count[at(j)] += 1;
                }
            }
        }
    }
    for i in 0..plane.len() {
        if mask[i] {
            plane[i] = match count[i] {
                0 => mean,
                n => sum[i] / i32::from(n),
            }
            .clamp(0, 255) as u8;
        }
    }
    relax(plane, width, height, mask);
}

/// Passes of 4-neighbour averaging over the hole only: the row and column estimates
/// disagree where the border is busy, which reads as a plaid; a few passes smooth it out.
const RELAX_PASSES: usize = 6;

fn relax(plane: &mut [u8], width: usize, height: usize, mask: &[bool]) {
    let holes: Vec<usize> = (0..plane.len()).filter(|&i| mask[i]).collect();
    for _ in 0..RELAX_PASSES {
        for &i in &holes {
            let (x, y) = (i % width, i / width);
            let left = plane[y * width + x.saturating_sub(1)];
            let right = plane[y * width + (x + 1).min(width - 1)];
            let up = plane[y.saturating_sub(1) * width + x];
            let down = plane[(y + 1).min(height - 1) * width + x];
            let sum = u32::from(left) + u32::from(right) + u32::from(up) + u32::from(down);
            plane[i] = ((sum + 2) / 4) as u8;
        }
    }
}
