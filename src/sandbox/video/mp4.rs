//! A minimal MP4 (ISO BMFF) writer for one H.264 video track, laid out for fast start:
//! `ftyp`, then `moov` with the full sample table, then `mdat`, so a player or browser can
//! start at the first byte without seeking to the end.
//!
//! Hand-written rather than taken from a crate: the `mp4` crate writes `mdat` first and patches
//! the header at the end (no fast start), and `muxide` re-parses Annex B input and fixes the
//! timescale at 90 kHz. We already hold the samples, so writing our own boxes is short and keeps
//! the duration exact: the timescale is `fps * 1000` and every sample lasts 1000 ticks.

use super::VideoError;

/// Ticks per frame; with a timescale of `fps * TICKS_PER_FRAME` the duration is exact.
const TICKS_PER_FRAME: u32 = 1000;

/// Collects AVCC samples (NAL units with 4-byte big-endian lengths) and writes the file.
pub(super) struct Mp4Muxer {
    width: u32,
    height: u32,
    fps: u32,
    sps: Vec<u8>,
    pps: Vec<u8>,
    data: Vec<u8>,
    sizes: Vec<u32>,
    /// 1-based sample numbers of the sync (IDR) samples, as `stss` lists them.
    sync: Vec<u32>,
}

impl Mp4Muxer {
    pub(super) fn new(width: u32, height: u32, fps: u32) -> Self {
        Self {
            width,
            height,
            fps,
            sps: Vec::new(),
            pps: Vec::new(),
            data: Vec::new(),
            sizes: Vec::new(),
            sync: Vec::new(),
        }
    }

    pub(super) fn has_parameter_sets(&self) -> bool {
        !self.sps.is_empty() && !self.pps.is_empty()
    }

    /// The SPS and PPS NAL units (without start codes) that go into `avcC`.
    pub(super) fn parameter_sets(&self) -> (&[u8], &[u8]) {
        (&self.sps, &self.pps)
    }

    pub(super) fn set_parameter_sets(&mut self, sps: &[u8], pps: &[u8]) {
        self.sps = sps.to_vec();
        self.pps = pps.to_vec();
    }

    #[cfg(test)]
    pub(super) fn sync_samples(&self) -> &[u32] {
        &self.sync
    }

    pub(super) fn sample_count(&self) -> u32 {
        self.sizes.len() as u32
    }

    /// One access unit in AVCC form.
    pub(super) fn add_sample(&mut self, sample: &[u8], is_sync: bool) -> Result<(), VideoError> {
        let size = u32::try_from(sample.len()).map_err(|_| VideoError::TooLarge("sample"))?;
        self.data.extend_from_slice(sample);
        self.sizes.push(size);
        if is_sync {
            self.sync.push(self.sizes.len() as u32);
        }
        Ok(())
    }

    pub(super) fn finish(self) -> Result<Vec<u8>, VideoError> {
        if self.sizes.is_empty() {
            return Err(VideoError::NoFrames);
        }
        if !self.has_parameter_sets() || self.sps.len() < 4 {
            return Err(VideoError::MissingParameterSets);
        }
        let ftyp = ftyp();
        let mdat_header_len: u64 = if self.data.len() as u64 + 8 > u64::from(u32::MAX) {
            16
        } else {
            8
        };
        // 64-bit chunk offsets once the samples could end past 4 GiB (16 MiB of headroom for
        // ftyp + moov); decided up front so both layouts below have the same length.
        let wide = self.data.len() as u64 + (1 << 24) > u64::from(u32::MAX);
        // The moov's length does not depend on the offset values it stores, so lay it out
        // once to learn where the samples will start.
        let probe = self.moov(0, wide)?;
        let data_start = (ftyp.len() + probe.len()) as u64 + mdat_header_len;
        let moov = self.moov(data_start, wide)?;
        debug_assert_eq!(moov.len(), probe.len());

        let mut out = Vec::with_capacity(data_start as usize + self.data.len());
        out.extend_from_slice(&ftyp);
        out.extend_from_slice(&moov);
        if mdat_header_len == 16 {
            out.extend_from_slice(&1u32.to_be_bytes());
            out.extend_from_slice(b"mdat");
            out.extend_from_slice(&(self.data.len() as u64 + 16).to_be_bytes());
        } else {
            out.extend_from_slice(&(self.data.len() as u32 + 8).to_be_bytes());
            out.extend_from_slice(b"mdat");
        }
        out.extend_from_slice(&self.data);
        Ok(out)
    }

    fn chunk_len(&self) -> usize {
        // About one second per chunk, like common muxers; any size is valid.
        self.fps.max(1) as usize
    }

    fn moov(&self, data_start: u64, wide_offsets: bool) -> Result<Vec<u8>, VideoError> {
        let timescale = self
            .fps
            .checked_mul(TICKS_PER_FRAME)
            .ok_or(VideoError::TooLarge("timescale"))?;
        let duration = self
            .sample_count()
            .checked_mul(TICKS_PER_FRAME)
            .ok_or(VideoError::TooLarge("duration"))?;
        let chunk_offsets = self.chunk_offsets(data_start);

        let mut b = BoxWriter::default();
        b.open(b"moov");
        self.mvhd(&mut b, timescale, duration);
        b.open(b"trak");
        self.tkhd(&mut b, duration);
        b.open(b"mdia");
        b.full(b"mdhd", 0, 0);
        b.u32(0); // creation time: fixed, so output is reproducible
        b.u32(0); // modification time
        b.u32(timescale);
        b.u32(duration);
        b.u16(0x55c4); // language "und"
        b.u16(0);
        b.close();
        b.full(b"hdlr", 0, 0);
        b.u32(0);
        b.bytes(b"vide");
        b.zeros(12);
        b.bytes(b"VideoHandler\0");
        b.close();
        b.open(b"minf");
        b.full(b"vmhd", 0, 1);
        b.zeros(8); // graphics mode + opcolor
        b.close();
        b.open(b"dinf");
        b.full(b"dref", 0, 0);
        b.u32(1);
        b.full(b"url ", 0, 1); // flag 1: media is in this file
        b.close();
        b.close();
        b.close();
        b.open(b"stbl");
        self.stsd(&mut b);
        b.full(b"stts", 0, 0);
        b.u32(1);
        b.u32(self.sample_count());
        b.u32(TICKS_PER_FRAME);
        b.close();
        b.full(b"stss", 0, 0);
        b.u32(self.sync.len() as u32);
        for &n in &self.sync {
            b.u32(n);
        }
        b.close();
        self.stsc(&mut b);
        b.full(b"stsz", 0, 0);
        b.u32(0); // sizes differ: one entry per sample follows
        b.u32(self.sample_count());
        for &size in &self.sizes {
            b.u32(size);
        }
        b.close();
        if wide_offsets {
            b.full(b"co64", 0, 0);
            b.u32(chunk_offsets.len() as u32);
            for &offset in &chunk_offsets {
                b.u64(offset);
            }
        } else {
            b.full(b"stco", 0, 0);
            b.u32(chunk_offsets.len() as u32);
            for &offset in &chunk_offsets {
                b.u32(offset as u32);
            }
        }
        b.close();
        b.close(); // stbl
        b.close(); // minf
        b.close(); // mdia
        b.close(); // trak
        b.close(); // moov
        Ok(b.out)
    }

    fn chunk_offsets(&self, data_start: u64) -> Vec<u64> {
        let mut offsets = Vec::new();
        let mut offset = data_start;
        for chunk in self.sizes.chunks(self.chunk_len()) {
            offsets.push(offset);
            offset += chunk.iter().map(|&s| u64::from(s)).sum::<u64>();
        }
        offsets
    }

    fn stsc(&self, b: &mut BoxWriter) {
        let per_chunk = self.chunk_len() as u32;
        let count = self.sample_count();
        let full_chunks = count / per_chunk;
        let rest = count % per_chunk;
        let mut entries = Vec::new();
        if full_chunks > 0 {
            entries.push((1, per_chunk));
        }
        if rest > 0 {
            entries.push((full_chunks + 1, rest));
        }
        b.full(b"stsc", 0, 0);
        b.u32(entries.len() as u32);
        for (first_chunk, samples) in entries {
            b.u32(first_chunk);
            b.u32(samples);
            b.u32(1); // sample description index
        }
        b.close();
    }

    fn mvhd(&self, b: &mut BoxWriter, timescale: u32, duration: u32) {
        b.full(b"mvhd", 0, 0);
        b.u32(0);
        b.u32(0);
        b.u32(timescale);
        b.u32(duration);
        b.u32(0x0001_0000); // rate 1.0
        b.u16(0x0100); // volume 1.0
        b.zeros(10);
        matrix(b);
        b.zeros(24); // pre_defined
        b.u32(2); // next track id
        b.close();
    }

    fn tkhd(&self, b: &mut BoxWriter, duration: u32) {
        b.full(b"tkhd", 0, 0x3); // enabled, in movie
        b.u32(0);
        b.u32(0);
        b.u32(1); // track id
        b.u32(0);
        b.u32(duration); // in the movie timescale, which equals the media one here
        b.zeros(8);
        b.u16(0); // layer
        b.u16(0); // alternate group
        b.u16(0); // volume: video
        b.u16(0);
        matrix(b);
        b.u32(self.width << 16);
        b.u32(self.height << 16);
        b.close();
    }

    fn stsd(&self, b: &mut BoxWriter) {
        b.full(b"stsd", 0, 0);
        b.u32(1);
        b.open(b"avc1");
        b.zeros(6);
        b.u16(1); // data reference index
        b.zeros(16);
        b.u16(self.width as u16);
        b.u16(self.height as u16);
        b.u32(0x0048_0000); // 72 dpi
        b.u32(0x0048_0000);
        b.u32(0);
        b.u16(1); // frames per sample
        let mut name = [0u8; 32];
        let label = b"Framewright sandbox H.264";
        name[0] = label.len() as u8;
        name[1..=label.len()].copy_from_slice(label);
        b.bytes(&name);
        b.u16(0x0018); // depth: colour, no alpha
        b.u16(0xffff); // pre_defined -1
        self.avcc(b);
        // The encoder converts RGB with BT.601 limited-range coefficients; say so, so players
        // do not guess BT.709 for HD sizes.
        b.open(b"colr");
        b.bytes(b"nclx");
        b.u16(6);
        b.u16(6);
        b.u16(6);
        b.u8(0);
        b.close();
        b.open(b"pasp");
        b.u32(1);
        b.u32(1);
        b.close();
        b.close(); // avc1
        b.close(); // stsd
    }

    fn avcc(&self, b: &mut BoxWriter) {
        let profile = self.sps[1];
        b.open(b"avcC");
        b.u8(1);
        b.u8(profile);
        b.u8(self.sps[2]); // profile compatibility
        b.u8(self.sps[3]); // level
        b.u8(0xfc | 3); // NAL lengths are 4 bytes
        b.u8(0xe0 | 1);
        b.u16(self.sps.len() as u16);
        b.bytes(&self.sps);
        b.u8(1);
        b.u16(self.pps.len() as u16);
        b.bytes(&self.pps);
        if matches!(profile, 100 | 110 | 122 | 144) {
            // High profiles carry chroma format and bit depths: 4:2:0, 8-bit.
            b.u8(0xfc | 1);
            b.u8(0xf8);
            b.u8(0xf8);
            b.u8(0);
        }
        b.close();
    }
}

fn ftyp() -> Vec<u8> {
    let mut b = BoxWriter::default();
    b.open(b"ftyp");
    b.bytes(b"isom");
    b.u32(0x200);
    for brand in [b"isom", b"iso2", b"avc1", b"mp41"] {
        b.bytes(brand);
    }
    b.close();
    b.out
}

fn matrix(b: &mut BoxWriter) {
    for value in [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000u32] {
        b.u32(value);
    }
}

/// Big-endian box builder: `open` writes a size placeholder that `close` fills in.
#[derive(Default)]
struct BoxWriter {
    out: Vec<u8>,
    open: Vec<usize>,
}

impl BoxWriter {
    fn open(&mut self, kind: &[u8; 4]) {
        self.open.push(self.out.len());
        self.out.extend_from_slice(&[0; 4]);
        self.out.extend_from_slice(kind);
    }

    fn full(&mut self, kind: &[u8; 4], version: u8, flags: u32) {
        self.open(kind);
        self.u32(u32::from(version) << 24 | (flags & 0x00ff_ffff));
    }

    fn close(&mut self) {
        if let Some(start) = self.open.pop() {
            let size = (self.out.len() - start) as u32;
            self.out[start..start + 4].copy_from_slice(&size.to_be_bytes());
        }
    }

    fn u8(&mut self, v: u8) {
        self.out.push(v);
    }

    fn u16(&mut self, v: u16) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    fn u64(&mut self, v: u64) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    fn bytes(&mut self, v: &[u8]) {
        self.out.extend_from_slice(v);
    }

    fn zeros(&mut self, n: usize) {
        self.out.resize(self.out.len() + n, 0);
    }
}

/// Test helpers that read back what the writer produced.
#[cfg(test)]
pub(super) mod read {
    /// Top-level boxes as (type, offset, size).
    pub(in super::super) fn top_level(file: &[u8]) -> Vec<([u8; 4], usize, usize)> {
        children(file, 0, file.len())
    }

    pub(in super::super) fn children(
        file: &[u8],
        start: usize,
        end: usize,
    ) -> Vec<([u8; 4], usize, usize)> {
        let mut boxes = Vec::new();
        let mut at = start;
        while at + 8 <= end {
            let mut size =
                u32::from_be_bytes([file[at], file[at + 1], file[at + 2], file[at + 3]]) as usize;
            let kind = [file[at + 4], file[at + 5], file[at + 6], file[at + 7]];
            if size == 1 {
                let mut wide = [0u8; 8];
                wide.copy_from_slice(&file[at + 8..at + 16]);
                size = u64::from_be_bytes(wide) as usize;
            }
            assert!(size >= 8 && at + size <= end, "bad box size at {at}");
            boxes.push((kind, at, size));
            at += size;
        }
        boxes
    }

    /// The first box of `path` (e.g. `["moov", "trak", "mdia"]`), as (offset, size).
    pub(in super::super) fn find(file: &[u8], path: &[&str]) -> Option<(usize, usize)> {
        let (mut start, mut end) = (0, file.len());
        let mut found = None;
        for (depth, name) in path.iter().enumerate() {
            let (_, offset, size) = children(file, start, end)
                .into_iter()
                .find(|(kind, _, _)| kind == name.as_bytes())?;
            found = Some((offset, size));
            // `stsd` has a version/flags word and an entry count before its children.
            let header = if depth > 0 && path[depth] == "stsd" {
                16
            } else {
                8
            };
            start = offset + header;
            end = offset + size;
        }
        found
    }

    pub(in super::super) fn u32_at(file: &[u8], at: usize) -> u32 {
        u32::from_be_bytes([file[at], file[at + 1], file[at + 2], file[at + 3]])
    }
}

#[cfg(test)]
mod tests {
    use super::read::{find, top_level, u32_at};
    use super::*;

    fn muxer(samples: u32, fps: u32) -> Mp4Muxer {
        let mut muxer = Mp4Muxer::new(64, 48, fps);
        muxer.set_parameter_sets(&[0x67, 66, 0xc0, 30, 0xaa], &[0x68, 0xce, 0x38, 0x80]);
        for i in 0..samples {
            let payload = [0, 0, 0, 2, 0x65, i as u8];
            muxer.add_sample(&payload, i % fps == 0).unwrap();
        }
        muxer
    }

    #[test]
    fn layout_is_fast_start_with_exact_offsets() {
        let file = muxer(30, 12).finish().unwrap();
        let kinds: Vec<[u8; 4]> = top_level(&file).iter().map(|b| b.0).collect();
        assert_eq!(kinds, [*b"ftyp", *b"moov", *b"mdat"]);
        let (mdat_at, _, _) = top_level(&file)
            .into_iter()
            .find(|b| &b.0 == b"mdat")
            .map(|b| (b.1, b.2, ()))
            .expect("mdat");
        let (stco, _) =
            find(&file, &["moov", "trak", "mdia", "minf", "stbl", "stco"]).expect("stco");
        assert_eq!(u32_at(&file, stco + 12), 3, "30 samples at 12 per chunk");
        assert_eq!(u32_at(&file, stco + 16) as usize, mdat_at + 8);
        // First sample's payload sits where stco says.
        assert_eq!(&file[mdat_at + 8..mdat_at + 14], &[0, 0, 0, 2, 0x65, 0]);
        // Third chunk starts at sample 24.
        assert_eq!(u32_at(&file, stco + 24) as usize, mdat_at + 8 + 24 * 6);
    }

    #[test]
    fn duration_is_frames_over_fps() {
        let file = muxer(25, 24).finish().unwrap();
        let (mvhd, _) = find(&file, &["moov", "mvhd"]).expect("mvhd");
        assert_eq!(u32_at(&file, mvhd + 20), 24_000);
        assert_eq!(u32_at(&file, mvhd + 24), 25_000);
        let (stsc, _) =
            find(&file, &["moov", "trak", "mdia", "minf", "stbl", "stsc"]).expect("stsc");
        assert_eq!(
            u32_at(&file, stsc + 12),
            2,
            "one full chunk and a partial one"
        );
    }

    #[test]
    fn empty_or_unconfigured_tracks_are_errors() {
        assert!(matches!(
            Mp4Muxer::new(16, 16, 24).finish(),
            Err(VideoError::NoFrames)
        ));
        let mut muxer = Mp4Muxer::new(16, 16, 24);
        muxer.add_sample(&[0, 0, 0, 1, 0x65], true).unwrap();
        assert!(matches!(
            muxer.finish(),
            Err(VideoError::MissingParameterSets)
        ));
    }
}
