//! DC-only JPEG decoding: the 1/8-scale image straight from the entropy-coded data.
//!
//! At 1/8 scale each 8×8 block becomes one pixel, and that pixel is the block's DC
//! coefficient (the block's mean), so no IDCT runs and the 63 AC coefficients are only
//! skipped. Skipping them is where the time goes. libjpeg-turbo decodes each coefficient's
//! Huffman code and then drops its magnitude bits, one coefficient at a time; here one table
//! lookup swallows up to three whole coefficients, which is what brings a 2048 px photo to a
//! 256 px tile several times faster than a full decode. Chroma halved both ways (4:2:0)
//! keeps libjpeg's 2×2 inverse DCT, so the pixels equal libjpeg's 1/8-scale output exactly
//! for 4:4:4, 4:2:0 and grey files (tested).
//!
//! Handles baseline and extended sequential Huffman JPEGs (SOF0/SOF1, 8-bit), grey or
//! YCbCr, in one scan, with any integral chroma subsampling and restart markers. Anything
//! else (progressive, arithmetic, CMYK, Adobe RGB, one scan per component, damaged data)
//! gives `None` and the caller uses libjpeg-turbo, which knows every variant and how to
//! recover.

use super::decode::{MAX_DECODE_BYTES, MAX_DECODE_SIDE_PX};

/// Bits looked up at once. Coefficients whose codes and magnitude bits fit in this many bits
/// are skipped in one step, often two or three of them.
const LOOKUP_BITS: u32 = 12;
const LOOKUP_SIZE: usize = 1 << LOOKUP_BITS;
/// Most AC coefficients skipped by one lookup (a window rarely holds more).
const SYMBOLS_PER_SKIP: u32 = 3;
/// Coefficients per 8×8 block.
const BLOCK_COEFFICIENTS: u32 = 64;
/// Output bytes per pixel (RGBA).
const RGBA_BYTES_PER_PIXEL: usize = 4;
/// The bit buffer is topped up when fewer than this many bits remain: one DC or AC symbol
/// (a code of at most 16 bits and at most 15 magnitude bits) always fits.
const MIN_BUFFERED_BITS: u32 = 32;

/// A decoded 1/8-scale image: `ceil(width / 8) × ceil(height / 8)` RGBA pixels.
pub(crate) struct DcImage {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) rgba: Vec<u8>,
}

/// Decode `bytes` at 1/8 scale, or `None` if this decoder does not handle the file.
pub(crate) fn decode_dc(bytes: &[u8]) -> Option<DcImage> {
    let header = Header::parse(bytes)?;
    let planes = decode_scan(&header, bytes.get(header.scan_offset..)?)?;
    Some(to_rgba(&header, &planes))
}

/// One colour component of the frame.
struct Component {
    id: u8,
    h_samples: usize,
    v_samples: usize,
    quant_table: usize,
    /// Set by the scan header.
    dc_table: usize,
    ac_table: usize,
}

/// Everything the entropy decoder needs, read from the markers before the scan.
struct Header {
    width: usize,
    height: usize,
    components: Vec<Component>,
    /// Component indices in the scan's order (the order of blocks inside an MCU).
    scan_order: Vec<usize>,
    /// Quantisation tables in natural (row-major) order.
    quant_tables: [Option<QuantTable>; 4],
    dc_tables: [Option<Huffman>; 4],
    ac_tables: [Option<Huffman>; 4],
    restart_interval_mcus: usize,
    /// Byte offset of the entropy-coded data.
    scan_offset: usize,
}

fn be16(bytes: &[u8], at: usize) -> Option<usize> {
    let pair = bytes.get(at..at + 2)?;
    Some(usize::from(pair[0]) << 8 | usize::from(pair[1]))
}

impl Header {
    fn parse(bytes: &[u8]) -> Option<Header> {
        if bytes.get(..2)? != [0xFF, 0xD8] {
            return None;
        }
        let mut frame: Option<(usize, usize, Vec<Component>)> = None;
        let mut quant_tables = [None; 4];
        let mut dc_tables: [Option<Huffman>; 4] = Default::default();
        let mut ac_tables: [Option<Huffman>; 4] = Default::default();
        let mut restart_interval_mcus = 0;
        let mut pos = 2;
        loop {
            if *bytes.get(pos)? != 0xFF {
                return None;
            }
            while *bytes.get(pos)? == 0xFF {
                pos += 1;
            }
            let marker = *bytes.get(pos)?;
            pos += 1;
            match marker {
                // Standalone markers carry no length.
                0x01 | 0xD0..=0xD7 => continue,
                0xD8 | 0xD9 => return None,
                _ => {}
            }
            let length = be16(bytes, pos)?;
            let segment = bytes.get(pos + 2..pos.checked_add(length)?)?;
            pos += length;
            match marker {
                0xC0 | 0xC1 => {
                    if frame.is_some() {
                        return None;
                    }
                    frame = Some(parse_frame(segment)?);
                }
                // Progressive, lossless, hierarchical or arithmetic-coded: not for this path.
                0xC2 | 0xC3 | 0xC5..=0xC7 | 0xC8..=0xCB | 0xCD..=0xCF => return None,
                0xC4 => parse_huffman_tables(segment, &mut dc_tables, &mut ac_tables)?,
                0xDB => parse_quant_tables(segment, &mut quant_tables)?,
                0xDD => restart_interval_mcus = be16(segment, 0)?,
                // Adobe's marker: transform 0 means the three components are RGB (or CMYK).
                0xEE if segment.starts_with(b"Adobe") && segment.get(11) == Some(&0) => {
                    return None;
                }
                0xDA => {
                    let (width, height, mut components) = frame?;
                    let scan_order = parse_scan(segment, &mut components)?;
                    let header = Header {
                        width,
                        height,
                        components,
                        scan_order,
                        quant_tables,
                        dc_tables,
                        ac_tables,
                        restart_interval_mcus,
                        scan_offset: pos,
                    };
                    return header.is_complete().then_some(header);
                }
                _ => {}
            }
        }
    }

    /// Every table the scan refers to exists.
    fn is_complete(&self) -> bool {
        self.scan_order.iter().all(|&index| {
            let component = &self.components[index];
            self.quant_tables[component.quant_table].is_some()
                && self.dc_tables[component.dc_table].is_some()
                && self.ac_tables[component.ac_table].is_some()
        })
    }

    fn max_h_samples(&self) -> usize {
        self.components
            .iter()
            .map(|c| c.h_samples)
            .max()
            .unwrap_or(1)
    }

    fn max_v_samples(&self) -> usize {
        self.components
            .iter()
            .map(|c| c.v_samples)
            .max()
            .unwrap_or(1)
    }

    /// MCUs across and down. A single-component scan is not interleaved: its MCU is one
    /// block of that component.
    fn mcu_grid(&self) -> (usize, usize) {
        if self.components.len() == 1 {
            (self.width.div_ceil(8), self.height.div_ceil(8))
        } else {
            (
                self.width.div_ceil(8 * self.max_h_samples()),
                self.height.div_ceil(8 * self.max_v_samples()),
            )
        }
    }

    /// Subsampling of component `index` against the full-resolution grid, across and down.
    fn subsampling(&self, index: usize) -> (usize, usize) {
        let component = &self.components[index];
        if self.components.len() == 1 {
            (1, 1)
        } else {
            (
                self.max_h_samples() / component.h_samples,
                self.max_v_samples() / component.v_samples,
            )
        }
    }

    /// Output samples per block side for component `index`. Chroma halved both ways
    /// (4:2:0) gets a 2×2 inverse DCT per block, as libjpeg does at this scale, because
    /// its DC values alone are too coarse (one per 16×16 pixels); everything else is one
    /// DC sample per block.
    fn samples_per_block(&self, index: usize) -> usize {
        if self.subsampling(index) == (2, 2) {
            2
        } else {
            1
        }
    }

    /// Blocks per MCU of component `index`, across and down.
    fn blocks_per_mcu(&self, index: usize) -> (usize, usize) {
        if self.components.len() == 1 {
            (1, 1)
        } else {
            let component = &self.components[index];
            (component.h_samples, component.v_samples)
        }
    }
}

/// SOF0/SOF1: 8-bit samples, one (grey) or three (YCbCr) components, a known size.
fn parse_frame(segment: &[u8]) -> Option<(usize, usize, Vec<Component>)> {
    if *segment.first()? != 8 {
        return None;
    }
    let height = be16(segment, 1)?;
    let width = be16(segment, 3)?;
    let count = usize::from(*segment.get(5)?);
    // Height 0 means "given by a DNL marker later"; rare, left to libjpeg.
    if width == 0 || height == 0 || !matches!(count, 1 | 3) {
        return None;
    }
    let max_side = usize::try_from(MAX_DECODE_SIDE_PX).ok()?;
    let pixels = u64::try_from(width * height).ok()?;
    if width > max_side
        || height > max_side
        || pixels * RGBA_BYTES_PER_PIXEL as u64 > MAX_DECODE_BYTES
    {
        return None;
    }
    let mut components = Vec::with_capacity(count);
    for spec in segment.get(6..6 + 3 * count)?.chunks_exact(3) {
        let (h_samples, v_samples) = (usize::from(spec[1] >> 4), usize::from(spec[1] & 15));
        let quant_table = usize::from(spec[2]);
        if !(1..=4).contains(&h_samples) || !(1..=4).contains(&v_samples) || quant_table > 3 {
            return None;
        }
        components.push(Component {
            id: spec[0],
            h_samples,
            v_samples,
            quant_table,
            dc_table: 0,
            ac_table: 0,
        });
    }
    // Three components named R, G, B are stored as RGB, not YCbCr.
    let ids: Vec<u8> = components.iter().map(|c| c.id).collect();
    if ids == b"RGB" {
        return None;
    }
    // Upsampling by replication/interpolation needs whole-number ratios.
    let max_h = components.iter().map(|c| c.h_samples).max()?;
    let max_v = components.iter().map(|c| c.v_samples).max()?;
    if components
        .iter()
        .any(|c| max_h % c.h_samples != 0 || max_v % c.v_samples != 0)
    {
        return None;
    }
    Some((width, height, components))
}

/// SOS: one scan holding every component, sequential (Ss 0, Se 63, no approximation).
fn parse_scan(segment: &[u8], components: &mut [Component]) -> Option<Vec<usize>> {
    let count = usize::from(*segment.first()?);
    if count != components.len() {
        return None;
    }
    let mut order = Vec::with_capacity(count);
    for spec in segment.get(1..1 + 2 * count)?.chunks_exact(2) {
        let index = components.iter().position(|c| c.id == spec[0])?;
        if order.contains(&index) {
            return None;
        }
        let (dc_table, ac_table) = (usize::from(spec[1] >> 4), usize::from(spec[1] & 15));
        if dc_table > 3 || ac_table > 3 {
            return None;
        }
        components[index].dc_table = dc_table;
        components[index].ac_table = ac_table;
        order.push(index);
    }
    let progression = segment.get(1 + 2 * count..4 + 2 * count)?;
    (progression == [0, 63, 0]).then_some(order)
}

/// A quantisation table, natural order.
type QuantTable = [i32; 64];

/// Zigzag position → natural (row-major) position.
const NATURAL_ORDER: [usize; 64] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20,
    13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59,
    52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

/// DQT: any number of tables, 8- or 16-bit entries.
fn parse_quant_tables(mut segment: &[u8], tables: &mut [Option<QuantTable>; 4]) -> Option<()> {
    while let Some(&spec) = segment.first() {
        let (precision, id) = (spec >> 4, usize::from(spec & 15));
        let entry_bytes = match precision {
            0 => 1,
            1 => 2,
            _ => return None,
        };
        let entries = segment.get(1..1 + 64 * entry_bytes)?;
        let mut table = [0; 64];
        for (zigzag, entry) in entries.chunks_exact(entry_bytes).enumerate() {
            table[NATURAL_ORDER[zigzag]] = entry
                .iter()
                .fold(0i32, |value, &byte| value << 8 | i32::from(byte));
        }
        *tables.get_mut(id)? = Some(table);
        segment = &segment[1 + 64 * entry_bytes..];
    }
    Some(())
}

/// DHT: any number of tables.
fn parse_huffman_tables(
    mut segment: &[u8],
    dc_tables: &mut [Option<Huffman>; 4],
    ac_tables: &mut [Option<Huffman>; 4],
) -> Option<()> {
    while let Some(&spec) = segment.first() {
        let (class, id) = (spec >> 4, usize::from(spec & 15));
        let counts: [u8; 16] = segment.get(1..17)?.try_into().ok()?;
        let total: usize = counts.iter().map(|&n| usize::from(n)).sum();
        let symbols = segment.get(17..17 + total)?;
        let table = Huffman::build(&counts, symbols, class == 1)?;
        match class {
            0 => *dc_tables.get_mut(id)? = Some(table),
            1 => *ac_tables.get_mut(id)? = Some(table),
            _ => return None,
        }
        segment = &segment[17 + total..];
    }
    Some(())
}

/// A canonical Huffman table with two lookup tables on the next `LOOKUP_BITS` bits.
#[derive(Clone)]
struct Huffman {
    /// `length << 8 | symbol` for codes of at most `LOOKUP_BITS` bits, else 0.
    decode: Box<[u16; LOOKUP_SIZE]>,
    /// AC tables: for the next `LOOKUP_BITS` bits, the whole coefficients they hold:
    /// `bits | coefficients advanced << 8 | advance before the last one << 16`, or 0 if
    /// not even one fits. End-of-block advances past the block.
    skip: Box<[u32; LOOKUP_SIZE]>,
    /// Largest code of each length (index = length), -1 if none.
    max_code: [i32; 17],
    /// Added to a code of that length to index `symbols`.
    value_offset: [i32; 17],
    symbols: Vec<u8>,
}

impl Huffman {
    fn build(counts: &[u8; 16], symbols: &[u8], is_ac: bool) -> Option<Huffman> {
        let mut table = Huffman {
            decode: Box::new([0; LOOKUP_SIZE]),
            skip: Box::new([0; LOOKUP_SIZE]),
            max_code: [-1; 17],
            value_offset: [0; 17],
            symbols: symbols.to_vec(),
        };
        let mut code: u32 = 0;
        let mut index = 0usize;
        for length in 1..=16u32 {
            let count = usize::from(counts[length as usize - 1]);
            if count > 0 {
                table.value_offset[length as usize] = index as i32 - code as i32;
                for _ in 0..count {
                    // Codes of one length must fit in that length (all-ones stays unused).
                    if code >= 1 << length {
                        return None;
                    }
                    if length <= LOOKUP_BITS {
                        let spread = LOOKUP_BITS - length;
                        let first = (code << spread) as usize;
                        let entry = (length as u16) << 8 | u16::from(symbols[index]);
                        table.decode[first..first + (1 << spread)].fill(entry);
                    }
                    code += 1;
                    index += 1;
                }
                table.max_code[length as usize] = code as i32 - 1;
            }
            code <<= 1;
        }
        if is_ac {
            table.fill_skip_table();
        }
        Some(table)
    }

    /// For every `LOOKUP_BITS`-bit window, the run of whole AC coefficients (code and
    /// magnitude bits, up to `SYMBOLS_PER_SKIP`) it holds, stopping after an end-of-block.
    fn fill_skip_table(&mut self) {
        for (window, slot) in self.skip.iter_mut().enumerate() {
            let (mut used_bits, mut advance, mut advance_before_last) = (0u32, 0u32, 0u32);
            for _ in 0..SYMBOLS_PER_SKIP {
                let rest = (window << used_bits) & (LOOKUP_SIZE - 1);
                let entry = self.decode[rest];
                let (length, symbol) = (u32::from(entry >> 8), entry as u8);
                let (run, size) = (u32::from(symbol >> 4), u32::from(symbol & 15));
                if entry == 0 || used_bits + length + size > LOOKUP_BITS {
                    break;
                }
                advance_before_last = advance;
                used_bits += length + size;
                // Size 0 is end-of-block, except run 15: sixteen zeros.
                advance += match (run, size) {
                    (15, 0) => 16,
                    (_, 0) => BLOCK_COEFFICIENTS,
                    _ => run + 1,
                };
                if size == 0 && run != 15 {
                    break;
                }
            }
            if used_bits > 0 {
                *slot = used_bits | advance << 8 | advance_before_last << 16;
            }
        }
    }

    /// The next symbol, or `None` for a code that is not in the table (damaged data).
    #[inline(always)]
    fn decode(&self, bits: &mut BitReader) -> Option<u8> {
        bits.ensure();
        let entry = self.decode[bits.peek(LOOKUP_BITS)];
        if entry != 0 {
            bits.consume(u32::from(entry >> 8));
            return Some(entry as u8);
        }
        let next16 = bits.peek(16) as i32;
        for length in LOOKUP_BITS + 1..=16 {
            let code = next16 >> (16 - length);
            if code <= self.max_code[length as usize] {
                bits.consume(length);
                let at = usize::try_from(code + self.value_offset[length as usize]).ok()?;
                return self.symbols.get(at).copied();
            }
        }
        None
    }
}

/// Reads the entropy-coded segment most significant bit first, undoing 0xFF00 stuffing.
/// At a marker (or the end of the data) it stops and feeds zero bits, as libjpeg does; the
/// zero bits fed are counted so a scan that runs past its data can be told apart.
struct BitReader<'a> {
    data: &'a [u8],
    pos: usize,
    /// Buffered bits, left-aligned.
    buffer: u64,
    count: u32,
    zero_bits_fed: u32,
    stopped: bool,
}

impl<'a> BitReader<'a> {
    fn new(data: &'a [u8]) -> Self {
        BitReader {
            data,
            pos: 0,
            buffer: 0,
            count: 0,
            zero_bits_fed: 0,
            stopped: false,
        }
    }

    #[inline(always)]
    fn ensure(&mut self) {
        if self.count < MIN_BUFFERED_BITS {
            self.refill();
        }
    }

    fn refill(&mut self) {
        // Fast path: eight bytes without 0xFF can be taken as they are.
        if !self.stopped
            && let Some(chunk) = self.data.get(self.pos..self.pos + 8)
            && let Ok(chunk) = <[u8; 8]>::try_from(chunk)
        {
            let word = u64::from_be_bytes(chunk);
            if !has_ff_byte(word) {
                let take_bytes = (63 - self.count) / 8;
                let take_bits = take_bytes * 8;
                self.buffer |= (word & !(u64::MAX >> take_bits)) >> self.count;
                self.count += take_bits;
                self.pos += take_bytes as usize;
                return;
            }
        }
        while self.count <= 56 {
            let byte = self.next_byte();
            self.buffer |= u64::from(byte) << (56 - self.count);
            self.count += 8;
        }
    }

    fn next_byte(&mut self) -> u8 {
        if !self.stopped {
            match self.data.get(self.pos) {
                Some(0xFF) if self.data.get(self.pos + 1) == Some(&0x00) => {
                    self.pos += 2;
                    return 0xFF;
                }
                Some(0xFF) | None => self.stopped = true,
                Some(&byte) => {
                    self.pos += 1;
                    return byte;
                }
            }
        }
        self.zero_bits_fed += 8;
        0
    }

    /// The next `n` (1..=32) bits without consuming them.
    #[inline(always)]
    fn peek(&self, n: u32) -> usize {
        (self.buffer >> (64 - n)) as usize
    }

    #[inline(always)]
    fn consume(&mut self, n: u32) {
        self.buffer <<= n;
        self.count -= n;
    }

    /// A magnitude of `size` bits, sign-extended the JPEG way.
    #[inline(always)]
    fn receive_extend(&mut self, size: u32) -> i32 {
        if size == 0 {
            return 0;
        }
        let value = self.peek(size) as i32;
        self.consume(size);
        if value < 1 << (size - 1) {
            value - (1 << size) + 1
        } else {
            value
        }
    }

    /// True if the decoder used bits that were not in the data.
    fn overran(&self) -> bool {
        self.zero_bits_fed > self.count
    }

    /// Skip the RSTn marker that ends a restart interval and start afresh after it.
    fn restart(&mut self, expected: u8) -> Option<()> {
        if self.overran() {
            return None;
        }
        // Padding bits of the interval's last byte are in the buffer; drop them.
        self.buffer = 0;
        self.count = 0;
        self.zero_bits_fed = 0;
        self.stopped = false;
        if *self.data.get(self.pos)? != 0xFF {
            return None;
        }
        while *self.data.get(self.pos)? == 0xFF {
            self.pos += 1;
        }
        if *self.data.get(self.pos)? != 0xD0 + expected {
            return None;
        }
        self.pos += 1;
        Some(())
    }
}

/// Does any of the eight bytes equal 0xFF? (Zero-byte test on the complement.)
#[inline(always)]
fn has_ff_byte(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let inverted = !word;
    inverted.wrapping_sub(ONES) & word & HIGHS != 0
}

/// A component's output samples: one per block (its DC value, as libjpeg's 1×1 inverse
/// DCT computes it), or 2×2 per block for 4:2:0 chroma.
struct Plane {
    across: usize,
    down: usize,
    samples: Vec<u8>,
}

/// What decoding a block of one component needs.
struct ComponentDecoder<'a> {
    dc_table: &'a Huffman,
    ac_table: &'a Huffman,
    quant: &'a QuantTable,
    blocks_per_mcu: (usize, usize),
    samples_per_block: usize,
}

#[inline(always)]
fn dc_sample(dc: i32, quant: i32) -> u8 {
    let value = ((i64::from(dc) * i64::from(quant) + 4) >> 3) + 128;
    value.clamp(0, 255) as u8
}

fn decode_scan(header: &Header, data: &[u8]) -> Option<Vec<Plane>> {
    let (mcus_across, mcus_down) = header.mcu_grid();
    let decoders: Vec<ComponentDecoder> = (0..header.components.len())
        .map(|index| {
            let component = &header.components[index];
            Some(ComponentDecoder {
                dc_table: header.dc_tables[component.dc_table].as_ref()?,
                ac_table: header.ac_tables[component.ac_table].as_ref()?,
                quant: header.quant_tables[component.quant_table].as_ref()?,
                blocks_per_mcu: header.blocks_per_mcu(index),
                samples_per_block: header.samples_per_block(index),
            })
        })
        .collect::<Option<_>>()?;
    let mut planes: Vec<Plane> = decoders
        .iter()
        .map(|decoder| {
            let (across, down) = decoder.blocks_per_mcu;
            let across = mcus_across * across * decoder.samples_per_block;
            let down = mcus_down * down * decoder.samples_per_block;
            Plane {
                across,
                down,
                samples: vec![0; across * down],
            }
        })
        .collect();
    // Per block of an MCU, in order: (component, column and row inside the MCU).
    let mut mcu_blocks = Vec::new();
    for &index in &header.scan_order {
        let (across, down) = decoders[index].blocks_per_mcu;
        for row in 0..down {
            for column in 0..across {
                mcu_blocks.push((index, column, row));
            }
        }
    }

    let mut bits = BitReader::new(data);
    let mut predictors = vec![0i32; header.components.len()];
    let mut restarts_seen = 0u8;
    let mut mcus_to_restart = header.restart_interval_mcus;
    for (mcu_y, mcu_x) in (0..mcus_down).flat_map(|y| (0..mcus_across).map(move |x| (y, x))) {
        // Data ran out (a truncated file, or a header promising far more than it holds):
        // stop now rather than decode zeros to the end of a huge frame.
        if mcu_x == 0 && bits.overran() {
            return None;
        }
        if header.restart_interval_mcus > 0 {
            if mcus_to_restart == 0 {
                bits.restart(restarts_seen % 8)?;
                restarts_seen = restarts_seen.wrapping_add(1);
                predictors.fill(0);
                mcus_to_restart = header.restart_interval_mcus;
            }
            mcus_to_restart -= 1;
        }
        for &(index, column, row) in &mcu_blocks {
            let decoder = &decoders[index];
            let size = decoder.dc_table.decode(&mut bits)?;
            let diff = bits.receive_extend(u32::from(size & 15));
            predictors[index] = predictors[index].wrapping_add(diff);
            let (across, down) = decoder.blocks_per_mcu;
            let (block_x, block_y) = (mcu_x * across + column, mcu_y * down + row);
            let plane = &mut planes[index];
            if decoder.samples_per_block == 1 {
                plane.samples[block_y * plane.across + block_x] =
                    dc_sample(predictors[index], decoder.quant[0]);
                skip_ac(decoder.ac_table, &mut bits)?;
            } else {
                let mut coefficients = [0i32; 64];
                coefficients[0] = predictors[index];
                decode_ac(decoder.ac_table, &mut bits, &mut coefficients)?;
                let [top, bottom] = idct_2x2(&coefficients, decoder.quant);
                let at = 2 * block_y * plane.across + 2 * block_x;
                plane.samples[at..at + 2].copy_from_slice(&top);
                plane.samples[at + plane.across..at + plane.across + 2].copy_from_slice(&bottom);
            }
        }
    }
    if bits.overran() {
        return None;
    }
    Some(planes)
}

/// Decode the AC coefficients of one block into `coefficients` (natural order).
fn decode_ac(table: &Huffman, bits: &mut BitReader, coefficients: &mut [i32; 64]) -> Option<()> {
    let mut k = 1;
    while k < 64 {
        let symbol = table.decode(bits)?;
        let (run, size) = (usize::from(symbol >> 4), u32::from(symbol & 15));
        if size == 0 {
            if run != 15 {
                break;
            }
            k += 16;
            continue;
        }
        k += run;
        // Damaged data can run past the block; libjpeg puts such a value on the last one.
        coefficients[NATURAL_ORDER[k.min(63)]] = bits.receive_extend(size);
        k += 1;
    }
    Some(())
}

/// libjpeg's 2×2 reduced inverse DCT (jidctred.c, `jpeg_idct_2x2`): the four quadrant
/// means of an 8×8 block, from its odd-frequency coefficients, in the same fixed point.
fn idct_2x2(coefficients: &[i32; 64], quant: &QuantTable) -> [[u8; 2]; 2] {
    const CONST_BITS: u32 = 13;
    const PASS1_BITS: u32 = 2;
    const FIX_0_720959822: i64 = 5906;
    const FIX_0_850430095: i64 = 6967;
    const FIX_1_272758580: i64 = 10426;
    const FIX_3_624509785: i64 = 29692;
    fn descale(value: i64, bits: u32) -> i64 {
        (value + (1 << (bits - 1))) >> bits
    }
    fn odd_part(f1: i64, f3: i64, f5: i64, f7: i64) -> i64 {
        f7 * -FIX_0_720959822 + f5 * FIX_0_850430095 + f3 * -FIX_1_272758580 + f1 * FIX_3_624509785
    }
    // Pass 1: columns 0, 1, 3, 5, 7 (the even ones do not reach a quadrant mean).
    let mut workspace = [[0i64; 8]; 2];
    for column in [0, 1, 3, 5, 7] {
        let term = |row: usize| {
            let at = row * 8 + column;
            i64::from(coefficients[at]) * i64::from(quant[at])
        };
        let even = term(0) << (CONST_BITS + 2);
        let odd = odd_part(term(1), term(3), term(5), term(7));
        workspace[0][column] = descale(even + odd, CONST_BITS - PASS1_BITS + 2);
        workspace[1][column] = descale(even - odd, CONST_BITS - PASS1_BITS + 2);
    }
    // Pass 2: the two rows.
    workspace.map(|row| {
        let even = row[0] << (CONST_BITS + 2);
        let odd = odd_part(row[1], row[3], row[5], row[7]);
        let sample = |value: i64| {
            (descale(value, CONST_BITS + PASS1_BITS + 3 + 2) + 128).clamp(0, 255) as u8
        };
        [sample(even + odd), sample(even - odd)]
    })
}

/// Skip the 63 AC coefficients of one block.
#[inline(always)]
fn skip_ac(table: &Huffman, bits: &mut BitReader) -> Option<()> {
    let mut k = 1;
    while k < BLOCK_COEFFICIENTS {
        bits.ensure();
        let entry = table.skip[bits.peek(LOOKUP_BITS)];
        // Several coefficients at once, unless the block may end before the last of them
        // (a block whose coefficient 63 is coded has no end-of-block symbol).
        if entry != 0 && k + (entry >> 16) < BLOCK_COEFFICIENTS {
            bits.consume(entry & 0xFF);
            k += (entry >> 8) & 0xFF;
            continue;
        }
        let symbol = table.decode(bits)?;
        let (run, size) = (u32::from(symbol >> 4), u32::from(symbol & 15));
        if size == 0 {
            if run != 15 {
                break;
            }
            k += 16;
        } else {
            bits.consume(size);
            k += run + 1;
        }
    }
    Some(())
}

/// Interpolation along one axis from a plane with `factor`× fewer samples: for each output
/// coordinate, the two neighbouring samples and the weight (0..=256) of the second.
fn axis_weights(output_len: usize, factor: usize, input_len: usize) -> Vec<(usize, usize, u32)> {
    (0..output_len)
        .map(|out| {
            if factor == 1 {
                let at = out.min(input_len - 1);
                return (at, at, 0);
            }
            // Sample centres: output pixel `out` sits at input position (out + 0.5) / f - 0.5.
            let position_x256 = ((2 * out + 1) * 256 / factor).saturating_sub(256) / 2;
            let low = (position_x256 / 256).min(input_len - 1);
            let high = (low + 1).min(input_len - 1);
            (low, high, (position_x256 % 256) as u32)
        })
        .collect()
}

/// Upsample each plane to the output grid (bilinear for subsampled chroma) and convert.
fn to_rgba(header: &Header, planes: &[Plane]) -> DcImage {
    let (width, height) = (header.width.div_ceil(8), header.height.div_ceil(8));
    let full: Vec<Vec<u8>> = planes
        .iter()
        .enumerate()
        .map(|(index, plane)| {
            let (h_subsampling, v_subsampling) = header.subsampling(index);
            let samples_per_block = header.samples_per_block(index);
            let (h_factor, v_factor) = (
                h_subsampling / samples_per_block,
                v_subsampling / samples_per_block,
            );
            let mut out = Vec::with_capacity(width * height);
            if (h_factor, v_factor) == (1, 1) {
                for row in plane.samples.chunks_exact(plane.across).take(height) {
                    out.extend_from_slice(&row[..width]);
                }
                return out;
            }
            let columns = axis_weights(width, h_factor, plane.across);
            let rows = axis_weights(height, v_factor, plane.down);
            for &(top, bottom, wy) in &rows {
                let top = &plane.samples[top * plane.across..][..plane.across];
                let bottom = &plane.samples[bottom * plane.across..][..plane.across];
                for &(left, right, wx) in &columns {
                    let upper = u32::from(top[left]) * (256 - wx) + u32::from(top[right]) * wx;
                    let lower =
                        u32::from(bottom[left]) * (256 - wx) + u32::from(bottom[right]) * wx;
                    let value = (upper * (256 - wy) + lower * wy + (1 << 15)) >> 16;
                    out.push(value as u8);
                }
            }
            out
        })
        .collect();
    let mut rgba = Vec::with_capacity(width * height * RGBA_BYTES_PER_PIXEL);
    match full.as_slice() {
        [grey] => {
            for &y in grey {
                rgba.extend_from_slice(&[y, y, y, 255]);
            }
        }
        [luma, cb, cr] => {
            for ((&y, &cb), &cr) in luma.iter().zip(cb).zip(cr) {
                rgba.extend_from_slice(&ycbcr_to_rgba(y, cb, cr));
            }
        }
        _ => {}
    }
    DcImage {
        width: width as u32,
        height: height as u32,
        rgba,
    }
}

/// libjpeg's fixed-point YCbCr → RGB (jdcolor.c), so grey and 4:4:4 files match it exactly.
#[inline(always)]
fn ycbcr_to_rgba(y: u8, cb: u8, cr: u8) -> [u8; 4] {
    const SCALE_BITS: i32 = 16;
    const HALF: i32 = 1 << (SCALE_BITS - 1);
    const fn fix(x: f64) -> i32 {
        (x * (1 << SCALE_BITS) as f64 + 0.5) as i32
    }
    let (y, cb, cr) = (i32::from(y), i32::from(cb) - 128, i32::from(cr) - 128);
    let red = y + ((fix(1.40200) * cr + HALF) >> SCALE_BITS);
    let green = y + ((-fix(0.34414) * cb - fix(0.71414) * cr + HALF) >> SCALE_BITS);
    let blue = y + ((fix(1.77200) * cb + HALF) >> SCALE_BITS);
    let clamp = |v: i32| v.clamp(0, 255) as u8;
    [clamp(red), clamp(green), clamp(blue), 255]
}

#[cfg(test)]
mod tests {
    use super::*;
    use jpeg_encoder::{ColorType, Encoder, SamplingFactor};

    fn fixture(name: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/fixtures/photos")
            .join(name)
    }

    /// A real photo at any size (detail at every scale, unlike a gradient).
    fn photo(width: u32, height: u32) -> image::RgbImage {
        let coffee = image::open(fixture("coffee.png")).expect("fixture photo");
        image::imageops::resize(
            &coffee.to_rgb8(),
            width,
            height,
            image::imageops::FilterType::Triangle,
        )
    }

    struct Encoding {
        sampling: SamplingFactor,
        restart_interval: Option<u16>,
        progressive: bool,
        grey: bool,
    }

    const PLAIN: Encoding = Encoding {
        sampling: SamplingFactor::R_4_2_0,
        restart_interval: None,
        progressive: false,
        grey: false,
    };

    fn encode(image: &image::RgbImage, how: &Encoding) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = Encoder::new(&mut out, 90);
        encoder.set_sampling_factor(how.sampling);
        encoder.set_progressive(how.progressive);
        if let Some(interval) = how.restart_interval {
            encoder.set_restart_interval(interval);
        }
        let (width, height) = (image.width() as u16, image.height() as u16);
        if how.grey {
            let grey = image::DynamicImage::ImageRgb8(image.clone()).to_luma8();
            encoder
                .encode(grey.as_raw(), width, height, ColorType::Luma)
                .expect("encode grey");
        } else {
            encoder
                .encode(image.as_raw(), width, height, ColorType::Rgb)
                .expect("encode");
        }
        out
    }

    /// libjpeg-turbo's own 1/8-scale decode, as the fast path used before this module.
    fn libjpeg_eighth(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
        let mut decoder = mozjpeg::Decompress::new_mem(bytes).expect("libjpeg header");
        decoder.scale(1);
        decoder.do_fancy_upsampling(false);
        let mut started = decoder.rgba().expect("libjpeg start");
        let (width, height) = (started.width() as u32, started.height() as u32);
        let pixels: Vec<u8> = started.read_scanlines().expect("libjpeg pixels");
        started.finish().expect("libjpeg finish");
        (width, height, pixels)
    }

    fn mean_abs_difference(a: &[u8], b: &[u8]) -> f64 {
        assert_eq!(a.len(), b.len());
        let total: u64 = a
            .iter()
            .zip(b)
            .map(|(x, y)| u64::from(x.abs_diff(*y)))
            .sum();
        total as f64 / a.len() as f64
    }

    #[test]
    fn equals_libjpeg_exactly_when_chroma_is_not_subsampled() {
        // Sizes that are not multiples of 8 exercise the partial blocks at the edges.
        for (width, height) in [(1037, 611), (64, 64), (9, 203)] {
            let image = photo(width, height);
            for grey in [false, true] {
                let how = Encoding {
                    sampling: SamplingFactor::R_4_4_4,
                    grey,
                    ..PLAIN
                };
                let bytes = encode(&image, &how);
                let ours = decode_dc(&bytes).expect("baseline JPEG is decoded");
                let (w, h, theirs) = libjpeg_eighth(&bytes);
                assert_eq!((ours.width, ours.height), (w, h), "{width}x{height}");
                assert_eq!((w, h), (width.div_ceil(8), height.div_ceil(8)));
                assert!(
                    ours.rgba == theirs,
                    "{width}x{height} grey={grey}: pixels differ from libjpeg"
                );
            }
        }
    }

    #[test]
    fn four_two_zero_equals_libjpeg_exactly() {
        // Chroma halved both ways goes through the same 2×2 inverse DCT as libjpeg's.
        for (width, height) in [(1203, 797), (2048, 64), (17, 33)] {
            let bytes = encode(&photo(width, height), &PLAIN);
            let ours = decode_dc(&bytes).expect("baseline JPEG is decoded");
            let (w, h, theirs) = libjpeg_eighth(&bytes);
            assert_eq!((ours.width, ours.height), (w, h), "{width}x{height}");
            assert!(ours.rgba == theirs, "{width}x{height}: pixels differ");
        }
    }

    #[test]
    fn other_subsampling_matches_libjpeg_closely() {
        // Chroma halved one way only: libjpeg repeats its DC values, this decoder
        // interpolates them. The same picture, less than a level apart on average.
        let image = photo(1203, 797);
        for sampling in [SamplingFactor::R_4_2_2, SamplingFactor::R_4_4_0] {
            let bytes = encode(&image, &Encoding { sampling, ..PLAIN });
            let ours = decode_dc(&bytes).unwrap_or_else(|| panic!("{sampling:?} is decoded"));
            let (w, h, theirs) = libjpeg_eighth(&bytes);
            assert_eq!((ours.width, ours.height), (w, h), "{sampling:?}");
            let difference = mean_abs_difference(&ours.rgba, &theirs);
            assert!(
                difference < 1.5,
                "{sampling:?}: mean difference {difference}"
            );
        }
    }

    #[test]
    fn real_camera_jpegs_are_decoded() {
        for name in ["hubble_deep_field.jpg", "retina.jpg", "rocket.jpg"] {
            let bytes = std::fs::read(fixture(name)).expect("fixture JPEG");
            let ours = decode_dc(&bytes).expect("baseline fixture is decoded");
            let (w, h, theirs) = libjpeg_eighth(&bytes);
            assert_eq!((ours.width, ours.height), (w, h), "{name}");
            assert!(ours.rgba == theirs, "{name}: pixels differ from libjpeg");
        }
    }

    #[test]
    fn restart_markers_do_not_change_the_picture() {
        let image = photo(517, 389);
        let plain = decode_dc(&encode(&image, &PLAIN)).expect("decode");
        for interval in [1, 7, 64] {
            let how = Encoding {
                restart_interval: Some(interval),
                ..PLAIN
            };
            let restarted = decode_dc(&encode(&image, &how)).expect("decode with restarts");
            assert!(
                restarted.rgba == plain.rgba,
                "restart interval {interval} changed the pixels"
            );
        }
    }

    #[test]
    fn declines_what_libjpeg_should_handle() {
        let image = photo(300, 200);
        let progressive = encode(
            &image,
            &Encoding {
                progressive: true,
                ..PLAIN
            },
        );
        assert!(decode_dc(&progressive).is_none(), "progressive");
        // jpeg-encoder writes 4:1:1 as one scan per component.
        let separate_scans = encode(
            &image,
            &Encoding {
                sampling: SamplingFactor::R_4_1_1,
                ..PLAIN
            },
        );
        assert!(
            decode_dc(&separate_scans).is_none(),
            "one scan per component"
        );
        assert!(decode_dc(b"").is_none());
        assert!(decode_dc(b"\xFF\xD8\xFF\xD9").is_none(), "no frame");
        assert!(decode_dc(b"GIF89a").is_none());
        // A PNG is not a JPEG.
        let png = std::fs::read(fixture("chelsea.png")).expect("fixture");
        assert!(decode_dc(&png).is_none());
    }

    #[test]
    fn damaged_data_is_declined_or_decoded_never_a_panic() {
        let bytes = encode(&photo(400, 300), &PLAIN);
        let expected = (400u32.div_ceil(8), 300u32.div_ceil(8));
        // Cut off mid-scan (an interrupted download): the scan runs out of data.
        assert!(decode_dc(&bytes[..bytes.len() / 2]).is_none());
        for cut in (0..bytes.len()).step_by(97) {
            if let Some(image) = decode_dc(&bytes[..cut]) {
                assert_eq!((image.width, image.height), expected, "cut at {cut}");
            }
        }
        // Flipped bytes anywhere, headers included (a fixed pseudo-random sequence).
        let mut state = 0x2545_F491_u32;
        for _ in 0..400 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let mut damaged = bytes.clone();
            let at = state as usize % damaged.len();
            damaged[at] ^= (state >> 24) as u8 | 1;
            if let Some(image) = decode_dc(&damaged) {
                assert_eq!(
                    image.rgba.len(),
                    (image.width * image.height * 4) as usize,
                    "flip at {at}"
                );
            }
        }
    }

    /// Full decode, then the mean of each 8×8 block (partial blocks at the edges).
    fn block_means(bytes: &[u8]) -> Vec<u8> {
        let full = image::load_from_memory(bytes)
            .expect("full decode")
            .to_rgba8();
        let (width, height) = full.dimensions();
        let mut out = Vec::new();
        for block_y in 0..height.div_ceil(8) {
            for block_x in 0..width.div_ceil(8) {
                let mut sum = [0u32; 4];
                let mut count = 0;
                for y in block_y * 8..(block_y * 8 + 8).min(height) {
                    for x in block_x * 8..(block_x * 8 + 8).min(width) {
                        for (total, value) in sum.iter_mut().zip(full.get_pixel(x, y).0) {
                            *total += u32::from(value);
                        }
                        count += 1;
                    }
                }
                out.extend(sum.map(|total| ((total + count / 2) / count) as u8));
            }
        }
        out
    }

    #[test]
    fn thumbnail_pixels_are_the_block_means_of_the_full_picture() {
        // What a 1/8 thumbnail should show: each pixel the mean of its 8×8 block of the
        // fully decoded picture (by the `image` crate's own decoder).
        let image = photo(803, 611);
        for sampling in [
            SamplingFactor::R_4_4_4,
            SamplingFactor::R_4_2_0,
            SamplingFactor::R_4_2_2,
        ] {
            let bytes = encode(&image, &Encoding { sampling, ..PLAIN });
            let ours = decode_dc(&bytes).unwrap_or_else(|| panic!("{sampling:?} is decoded"));
            let difference = mean_abs_difference(&ours.rgba, &block_means(&bytes));
            assert!(
                difference < 1.5,
                "{sampling:?}: mean difference {difference}"
            );
        }
    }
}
