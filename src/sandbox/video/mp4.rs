//! A minimal MP4 (ISO BMFF) writer for one H.264 video track and optionally one Opus audio
//! track, laid out for fast start: `ftyp`, then `moov` with the full sample tables, then
//! `mdat`, so a player or browser can start at the first byte without seeking to the end.
//! With audio, `mdat` interleaves about one second of video then one second of audio, so a
//! player streaming the file has both at hand without range requests far ahead.
//!
//! The audio track follows "Encapsulation of Opus in ISO Base Media File Format": an `Opus`
//! sample entry with a `dOps` box, timescale 48000, one Opus packet per sample.
//!
//! Hand-written rather than taken from a crate: the `mp4` crate writes `mdat` first and patches
//! the header at the end (no fast start), and `muxide` re-parses Annex B input and fixes the
//! timescale at 90 kHz. We already hold the samples, so writing our own boxes is short and keeps
//! the duration exact: the timescale is `fps * 1000` and every sample lasts 1000 ticks.

use super::VideoError;

/// Ticks per frame; with a timescale of `fps * TICKS_PER_FRAME` the duration is exact.
const TICKS_PER_FRAME: u32 = 1000;

/// Opus packets of 48 kHz audio per sample rate of 48000 (Opus always decodes at 48 kHz).
pub(super) const OPUS_TIMESCALE: u32 = 48_000;
/// Audio packets per chunk: one second of 20-ms packets.
const AUDIO_CHUNK_PACKETS: usize = 50;

/// An encoded Opus stream ready to mux: one packet per sample.
pub(crate) struct OpusTrack {
    /// 1 or 2.
    pub channels: u8,
    /// Samples (at 48 kHz) the decoder must drop from the start: the encoder's lookahead.
    pub pre_skip: u16,
    /// 48-kHz samples each packet decodes to (960 for 20-ms frames).
    pub samples_per_packet: u32,
    pub packets: Vec<Vec<u8>>,
}

impl OpusTrack {
    fn duration_ticks(&self) -> u64 {
        self.packets.len() as u64 * u64::from(self.samples_per_packet)
    }
}

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

    pub(super) fn finish(self, audio: Option<&OpusTrack>) -> Result<Vec<u8>, VideoError> {
        let audio = audio.filter(|a| !a.packets.is_empty());
        if self.sizes.is_empty() {
            return Err(VideoError::NoFrames);
        }
        if !self.has_parameter_sets() || self.sps.len() < 4 {
            return Err(VideoError::MissingParameterSets);
        }
        let ftyp = ftyp();
        let audio_len: u64 = audio.map_or(0, |a| a.packets.iter().map(|p| p.len() as u64).sum());
        let payload_len = self.data.len() as u64 + audio_len;
        let mdat_header_len: u64 = if payload_len + 8 > u64::from(u32::MAX) {
            16
        } else {
            8
        };
        // 64-bit chunk offsets once the samples could end past 4 GiB (16 MiB of headroom for
        // ftyp + moov); decided up front so both layouts below have the same length.
        let wide = payload_len + (1 << 24) > u64::from(u32::MAX);
        // The moov's length does not depend on the offset values it stores, so lay it out
        // once to learn where the samples will start.
        let probe = self.moov(&self.layout(audio, 0), audio, wide)?;
        let data_start = (ftyp.len() + probe.len()) as u64 + mdat_header_len;
        let layout = self.layout(audio, data_start);
        let moov = self.moov(&layout, audio, wide)?;
        debug_assert_eq!(moov.len(), probe.len());

        let mut out = Vec::with_capacity((data_start + payload_len) as usize);
        out.extend_from_slice(&ftyp);
        out.extend_from_slice(&moov);
        if mdat_header_len == 16 {
            out.extend_from_slice(&1u32.to_be_bytes());
            out.extend_from_slice(b"mdat");
            out.extend_from_slice(&(payload_len + 16).to_be_bytes());
        } else {
            out.extend_from_slice(&(payload_len as u32 + 8).to_be_bytes());
            out.extend_from_slice(b"mdat");
        }
        // Same order as `layout`: video chunk i, then audio chunk i.
        let mut video_at = 0usize;
        let video_chunks = self.sizes.chunks(self.chunk_len());
        let audio_chunks = audio.map(|a| a.packets.chunks(AUDIO_CHUNK_PACKETS));
        let mut audio_chunks = audio_chunks.into_iter().flatten();
        let mut video_chunks = video_chunks.into_iter();
        loop {
            let video = video_chunks.next();
            if let Some(chunk) = video {
                let len: usize = chunk.iter().map(|&s| s as usize).sum();
                out.extend_from_slice(&self.data[video_at..video_at + len]);
                video_at += len;
            }
            let audio = audio_chunks.next();
            if let Some(chunk) = audio {
                for packet in chunk {
                    out.extend_from_slice(packet);
                }
            }
            if video.is_none() && audio.is_none() {
                break;
            }
        }
        Ok(out)
    }

    /// Where each chunk starts in the file: video chunk i, then audio chunk i, in turn.
    fn layout(&self, audio: Option<&OpusTrack>, data_start: u64) -> ChunkLayout {
        let mut layout = ChunkLayout::default();
        let mut video_chunks = self.sizes.chunks(self.chunk_len());
        let mut audio_chunks = audio
            .map(|a| a.packets.chunks(AUDIO_CHUNK_PACKETS))
            .into_iter()
            .flatten();
        let mut offset = data_start;
        loop {
            let video = video_chunks.next();
            if let Some(chunk) = video {
                layout.video.push(offset);
                offset += chunk.iter().map(|&s| u64::from(s)).sum::<u64>();
            }
            let audio = audio_chunks.next();
            if let Some(chunk) = audio {
                layout.audio.push(offset);
                offset += chunk.iter().map(|p| p.len() as u64).sum::<u64>();
            }
            if video.is_none() && audio.is_none() {
                return layout;
            }
        }
    }

    fn chunk_len(&self) -> usize {
        // About one second per chunk, like common muxers; any size is valid.
        self.fps.max(1) as usize
    }

    fn moov(
        &self,
        layout: &ChunkLayout,
        audio: Option<&OpusTrack>,
        wide_offsets: bool,
    ) -> Result<Vec<u8>, VideoError> {
        let timescale = self
            .fps
            .checked_mul(TICKS_PER_FRAME)
            .ok_or(VideoError::TooLarge("timescale"))?;
        let duration = self
            .sample_count()
            .checked_mul(TICKS_PER_FRAME)
            .ok_or(VideoError::TooLarge("duration"))?;
        let chunk_offsets = &layout.video;

        let mut b = BoxWriter::default();
        b.open(b"moov");
        let next_track_id = if audio.is_some() { 3 } else { 2 };
        self.mvhd(&mut b, timescale, duration, next_track_id);
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
        stsc(&mut b, self.sample_count(), self.chunk_len() as u32);
        stsz(&mut b, self.sizes.iter().copied());
        chunk_offset_box(&mut b, chunk_offsets, wide_offsets);
        b.close(); // stbl
        b.close(); // minf
        b.close(); // mdia
        b.close(); // trak
        if let Some(audio) = audio {
            audio_trak(&mut b, audio, &layout.audio, timescale, wide_offsets)?;
        }
        b.close(); // moov
        Ok(b.out)
    }

    fn mvhd(&self, b: &mut BoxWriter, timescale: u32, duration: u32, next_track_id: u32) {
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
        b.u32(next_track_id);
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

/// File offsets of each track's chunks.
#[derive(Default)]
struct ChunkLayout {
    video: Vec<u64>,
    audio: Vec<u64>,
}

/// Sample-to-chunk: `per_chunk` samples in every chunk but a shorter last one.
fn stsc(b: &mut BoxWriter, count: u32, per_chunk: u32) {
    let per_chunk = per_chunk.max(1);
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

fn stsz(b: &mut BoxWriter, sizes: impl ExactSizeIterator<Item = u32>) {
    b.full(b"stsz", 0, 0);
    b.u32(0); // sizes differ: one entry per sample follows
    b.u32(sizes.len() as u32);
    for size in sizes {
        b.u32(size);
    }
    b.close();
}

fn chunk_offset_box(b: &mut BoxWriter, offsets: &[u64], wide: bool) {
    if wide {
        b.full(b"co64", 0, 0);
        b.u32(offsets.len() as u32);
        for &offset in offsets {
            b.u64(offset);
        }
    } else {
        b.full(b"stco", 0, 0);
        b.u32(offsets.len() as u32);
        for &offset in offsets {
            b.u32(offset as u32);
        }
    }
    b.close();
}

/// The Opus track (id 2). `movie_timescale` is the video's, in which `tkhd` counts.
fn audio_trak(
    b: &mut BoxWriter,
    audio: &OpusTrack,
    chunk_offsets: &[u64],
    movie_timescale: u32,
    wide_offsets: bool,
) -> Result<(), VideoError> {
    let too_long = || VideoError::TooLarge("audio duration");
    let media_ticks = u32::try_from(audio.duration_ticks()).map_err(|_| too_long())?;
    let movie_ticks = u32::try_from(
        audio.duration_ticks() * u64::from(movie_timescale) / u64::from(OPUS_TIMESCALE),
    )
    .map_err(|_| too_long())?;
    let sizes = audio
        .packets
        .iter()
        .map(|p| u32::try_from(p.len()).map_err(|_| VideoError::TooLarge("audio packet")))
        .collect::<Result<Vec<u32>, _>>()?;

    b.open(b"trak");
    b.full(b"tkhd", 0, 0x3); // enabled, in movie
    b.u32(0);
    b.u32(0);
    b.u32(2); // track id
    b.u32(0);
    b.u32(movie_ticks);
    b.zeros(8);
    b.u16(0); // layer
    b.u16(1); // alternate group: the one audio track
    b.u16(0x0100); // volume 1.0
    b.u16(0);
    matrix(b);
    b.u32(0); // no visual size
    b.u32(0);
    b.close();
    b.open(b"mdia");
    b.full(b"mdhd", 0, 0);
    b.u32(0);
    b.u32(0);
    b.u32(OPUS_TIMESCALE);
    b.u32(media_ticks);
    b.u16(0x55c4); // language "und"
    b.u16(0);
    b.close();
    b.full(b"hdlr", 0, 0);
    b.u32(0);
    b.bytes(b"soun");
    b.zeros(12);
    b.bytes(b"SoundHandler\0");
    b.close();
    b.open(b"minf");
    b.full(b"smhd", 0, 0);
    b.u16(0); // balance: centre
    b.u16(0);
    b.close();
    b.open(b"dinf");
    b.full(b"dref", 0, 0);
    b.u32(1);
    b.full(b"url ", 0, 1);
    b.close();
    b.close();
    b.close();
    b.open(b"stbl");
    b.full(b"stsd", 0, 0);
    b.u32(1);
    b.open(b"Opus");
    b.zeros(6);
    b.u16(1); // data reference index
    b.zeros(8); // version 0 audio sample entry
    b.u16(u16::from(audio.channels));
    b.u16(16); // sample size
    b.u16(0);
    b.u16(0);
    b.u32(OPUS_TIMESCALE << 16); // 16.16 sample rate
    // dOps is big-endian (unlike the Ogg OpusHead it mirrors).
    b.open(b"dOps");
    b.u8(0); // version
    b.u8(audio.channels); // OutputChannelCount
    b.u16(audio.pre_skip);
    b.u32(OPUS_TIMESCALE); // InputSampleRate (informative)
    b.u16(0); // OutputGain
    b.u8(0); // ChannelMappingFamily 0: mono or stereo, no table
    b.close();
    b.close(); // Opus
    b.close(); // stsd
    b.full(b"stts", 0, 0);
    b.u32(1);
    b.u32(sizes.len() as u32);
    b.u32(audio.samples_per_packet);
    b.close();
    stsc(b, sizes.len() as u32, AUDIO_CHUNK_PACKETS as u32);
    stsz(b, sizes.into_iter());
    chunk_offset_box(b, chunk_offsets, wide_offsets);
    b.close(); // stbl
    b.close(); // minf
    b.close(); // mdia
    b.close(); // trak
    Ok(())
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
        let file = muxer(30, 12).finish(None).unwrap();
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
        let file = muxer(25, 24).finish(None).unwrap();
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
            Mp4Muxer::new(16, 16, 24).finish(None),
            Err(VideoError::NoFrames)
        ));
        let mut muxer = Mp4Muxer::new(16, 16, 24);
        muxer.add_sample(&[0, 0, 0, 1, 0x65], true).unwrap();
        assert!(matches!(
            muxer.finish(None),
            Err(VideoError::MissingParameterSets)
        ));
    }
}
