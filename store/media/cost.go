package media

import (
	"encoding/binary"
	"image"
)

// decodeCost is what the header says decoding a picture will hold: the
// decoded picture while its renditions are made (nothing for a PNG that
// is read a row at a time), and the most at once while decoding, the
// decoder's own buffers included. The figures follow the decoders this
// package uses (image/jpeg, image/gif, golang.org/x/image/webp and
// pngRows), and TestPictureMemoryBounded checks them.
type decodeCost struct {
	held, peak int64
}

// costOf reads the cost of decoding a picture from its header; cfg is
// what image.DecodeConfig read.
func costOf(format string, cfg image.Config, data []byte) (decodeCost, error) {
	w, h := int64(cfg.Width), int64(cfg.Height)
	switch format {
	case "jpeg":
		return jpegCost(data, w, h)
	case "png":
		if len(data) < 29 {
			return decodeCost{}, ErrImageDamaged
		}
		if data[28] == 0 {
			// Non-interlaced: rows stream from the file (see pngRows).
			return decodeCost{peak: 32 * w}, nil
		}
		// Interlaced: the passes are gathered into one 8-bit picture.
		return decodeCost{held: 4 * w * h, peak: 4*w*h + 32*w}, nil
	case "gif":
		return decodeCost{held: w * h, peak: w * h}, nil // one byte a pixel: the first frame
	case "webp":
		return webpCost(data, w, h), nil
	}
	return decodeCost{}, ErrImageFormat
}

// jpegCost follows image/jpeg: one byte per sample of each component,
// padded to whole blocks (a 4-component picture is converted to CMYK,
// four bytes a pixel, as well); a progressive JPEG also keeps every
// block's coefficients for the scans still to come, 64 int32s a block:
// four bytes per sample.
func jpegCost(data []byte, w, h int64) (decodeCost, error) {
	progressive, comps, ok := jpegFrame(data)
	if !ok {
		return decodeCost{}, ErrImageDamaged
	}
	if len(comps) == 1 {
		comps[0] = [2]int64{1, 1} // image/jpeg ignores a lone component's sampling
	}
	var hmax, vmax int64 = 1, 1
	for _, c := range comps {
		hmax, vmax = max(hmax, c[0]), max(vmax, c[1])
	}
	mcuW, mcuH := (w+8*hmax-1)/(8*hmax), (h+8*vmax-1)/(8*vmax)
	var samples int64
	for _, c := range comps {
		samples += mcuW * c[0] * 8 * mcuH * c[1] * 8
	}
	cost := decodeCost{held: samples, peak: samples}
	if len(comps) == 4 {
		cost.held += 4 * w * h
		cost.peak += 4 * w * h
	}
	if progressive {
		cost.peak += 4 * samples
	}
	return cost, nil
}

// jpegFrame reads the frame header: whether the JPEG is progressive and
// each component's horizontal and vertical sampling factors.
func jpegFrame(data []byte) (progressive bool, comps [][2]int64, ok bool) {
	i := 2
	for i+4 <= len(data) {
		if data[i] != 0xFF {
			return false, nil, false
		}
		marker := data[i+1]
		if marker == 0xFF { // fill byte
			i++
			continue
		}
		n := int(binary.BigEndian.Uint16(data[i+2:]))
		if n < 2 || i+2+n > len(data) {
			return false, nil, false
		}
		seg := data[i+4 : i+2+n]
		switch marker {
		case 0xC0, 0xC1, 0xC2:
			if len(seg) < 6 || len(seg) < 6+3*int(seg[5]) {
				return false, nil, false
			}
			for c := range int(seg[5]) {
				hv := seg[6+3*c+1]
				comps = append(comps, [2]int64{max(1, int64(hv>>4)), max(1, int64(hv&15))})
			}
			return marker == 0xC2, comps, len(comps) > 0
		case 0xDA, 0xD9:
			return false, nil, false // a scan before any frame header
		}
		i += 2 + n
	}
	return false, nil, false
}

// webpCost follows golang.org/x/image/webp: a lossy picture decodes to
// 4:2:0 YCbCr over whole macroblocks, plus a byte a pixel of alpha, which
// when compressed is first decoded as a lossless picture of its own; a
// lossless picture is four bytes a pixel, and a palette-packed one is
// unpacked from a copy of up to half that.
func webpCost(data []byte, w, h int64) decodeCost {
	lossless, alpha, packedAlpha := false, false, false
	for i := 12; i+8 <= len(data); {
		n := int64(binary.LittleEndian.Uint32(data[i+4:]))
		switch string(data[i : i+4]) {
		case "VP8L":
			lossless = true
		case "ALPH":
			alpha = true
			packedAlpha = i+8 < len(data) && data[i+8]&3 == 1
		}
		if n > int64(len(data)) {
			break
		}
		i += 8 + int(n+n&1)
	}
	if lossless {
		return decodeCost{held: 4 * w * h, peak: 6 * w * h}
	}
	mbw, mbh := (w+15)/16, (h+15)/16
	cost := decodeCost{held: 384 * mbw * mbh} // 256 luma and 2 x 64 chroma bytes a macroblock
	if alpha {
		cost.held += w * h
	}
	cost.peak = cost.held
	if packedAlpha {
		cost.peak += 4 * w * h
	}
	return cost
}

// workingMemory is the most processing a picture is expected to hold at
// once: the upload itself, and the largest of its three stages: decoding;
// scaling the decoded picture to the widest rendition (read a row at a
// time, with a few rows of working space); and making each narrower
// rendition from the one before while that one is encoded (its encoded
// bytes counted as large as its pixels, which a PNG of noise is).
func workingMemory(c decodeCost, dataLen, w, h int) int64 {
	sizes := renditionSizes(w, h)
	var widest, next int64
	widest = 4 * int64(sizes[0].X) * int64(sizes[0].Y)
	if len(sizes) > 1 {
		next = 4 * int64(sizes[1].X) * int64(sizes[1].Y)
	}
	const workspace = 16 << 20 // rows, scaling weights, encoder state
	return int64(dataLen) + workspace + max(c.peak, c.held+widest, 2*widest+next)
}
