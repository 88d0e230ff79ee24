package pagebody

// crc32Combine returns the CRC-32 (IEEE) of a‖b from crc1 = CRC(a),
// crc2 = CRC(b) and len2 = len(b), as zlib's crc32_combine does: the
// stored page's segments keep their CRCs, so a response's gzip trailer is
// computed without decompressing them. hash/crc32 has no such function.
func crc32Combine(crc1, crc2 uint32, len2 int64) uint32 {
	if len2 <= 0 {
		return crc1 ^ crc2 // CRC of nothing is 0; only crc1 survives
	}
	return multModP(x2nModP(uint64(len2), 3), crc1) ^ crc2
}

// crcShift is the operator that carries a CRC over len2 bytes, for
// crc32CombineShift; 0 for no bytes.
func crcShift(len2 int64) uint32 {
	if len2 <= 0 {
		return 0
	}
	return x2nModP(uint64(len2), 3)
}

// crc32CombineShift is crc32Combine with the operator of len2 computed
// beforehand by crcShift.
func crc32CombineShift(crc1, crc2, shift uint32) uint32 {
	if shift == 0 || crc1 == 0 {
		return crc1 ^ crc2
	}
	return multModP(shift, crc1) ^ crc2
}

// crcPoly is the reflected IEEE polynomial.
const crcPoly = 0xedb88320

// multModP multiplies a and b modulo the CRC polynomial (reflected bit
// order). a must not be zero.
func multModP(a, b uint32) uint32 {
	m, p := uint32(1)<<31, uint32(0)
	for {
		if a&m != 0 {
			p ^= b
			if a&(m-1) == 0 {
				return p
			}
		}
		m >>= 1
		if b&1 != 0 {
			b = b>>1 ^ crcPoly
		} else {
			b >>= 1
		}
	}
}

// x2nTable[k] is x^(2^k) modulo the polynomial.
var x2nTable = func() [32]uint32 {
	var t [32]uint32
	p := uint32(1) << 30 // x^1
	t[0] = p
	for k := 1; k < 32; k++ {
		p = multModP(p, p)
		t[k] = p
	}
	return t
}()

// x2nModP is x^(n * 2^k) modulo the polynomial.
func x2nModP(n uint64, k uint) uint32 {
	p := uint32(1) << 31 // x^0
	for n != 0 {
		if n&1 != 0 {
			p = multModP(x2nTable[k&31], p)
		}
		n >>= 1
		k++
	}
	return p
}
