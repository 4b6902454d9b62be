//! The poster: frame 0 as a JPEG, long side at most `POSTER_LONG_SIDE_PX`.

use image::DynamicImage;
use image::codecs::jpeg::JpegEncoder;

use super::yuv::I420;
use super::{POSTER_LONG_SIDE_PX, VideoError};

const QUALITY: u8 = 85;

pub(super) fn poster_jpeg(frame: &I420) -> Result<Vec<u8>, VideoError> {
    let mut image = DynamicImage::ImageRgb8(frame.to_rgb());
    if image.width().max(image.height()) > POSTER_LONG_SIDE_PX {
        // Keeps the aspect ratio; a box filter inside `image`, fast even in debug builds.
        image = image.thumbnail(POSTER_LONG_SIDE_PX, POSTER_LONG_SIDE_PX);
    }
    let mut jpeg = Vec::new();
    image.write_with_encoder(JpegEncoder::new_with_quality(&mut jpeg, QUALITY))?;
    Ok(jpeg)
}
