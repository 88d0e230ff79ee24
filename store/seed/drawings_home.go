package seed

// Kitchen and home.

func drawChefsKnife(p *pic) {
	const a, cx, cy = -28, 320, 330
	p.add(matSteel, rot(poly(90, 330, 170, 296, 392, 282, 392, 350, 250, 356, 160, 348), a, cx, cy))
	p.fill(matSteelDark, rot(poly(170, 300, 392, 287, 392, 300, 180, 310), a, cx, cy))
	p.add(matSteelDark, rot(rect(386, 276, 412, 356, 6), a, cx, cy))
	p.add(matPaint, rot(rect(404, 292, 566, 342, 22), a, cx, cy))
	for _, x := range []float64{450, 505} {
		p.fill(matSteel, rot(circle(x, 317, 8), a, cx, cy))
	}
}

func drawSkillet(p *pic) {
	p.add(matPaint, rot(rect(380, 306, 600, 346, 20), -22, 380, 326))
	p.fill(matPaintDark, rot(rect(540, 318, 580, 334, 8), -22, 380, 326))
	p.add(matPaint, circle(260, 340, 168))
	p.fill(matPaintDark, circle(260, 340, 140))
	p.fill(matPaint, ellipse(220, 300, 60, 36))
}

func drawDutchOven(p *pic) {
	p.add(matPaintDark, rect(104, 330, 170, 372, 16))
	p.add(matPaintDark, rect(470, 330, 536, 372, 16))
	p.add(matPaint, rect(140, 270, 500, 500, 60))
	p.fill(matPaintLight, rect(170, 300, 196, 460, 12))
	p.add(matPaintDark, rect(122, 238, 518, 282, 22))
	p.add(matSteel, rect(286, 196, 354, 240, 14))
}

func drawCuttingBoard(p *pic) {
	board := union(rect(110, 220, 470, 480, 36), rect(450, 300, 570, 400, 40))
	p.add(matPaint, cut(board, circle(530, 350, 20)))
	for _, y := range []float64{270, 330, 400, 440} {
		p.fill(matPaintDark, line(150, y, 420, y+8, 5))
	}
	p.add(matRed, circle(230, 330, 62))
	p.fill(matPaper, circle(230, 330, 44))
	p.fill(matRed, circle(230, 330, 12))
	p.add(matGreen, rot(ellipse(370, 300, 56, 24), -30, 370, 300))
	p.add(matGreen, rot(ellipse(380, 370, 50, 22), 20, 380, 370))
}

func drawKettle(p *pic) {
	p.add(matPaint, arc(470, 330, 70, -90, 90, 30))
	p.add(matPaint, line(178, 390, 150, 250, 22))
	p.add(matPaint, line(150, 250, 100, 210, 18))
	p.add(matPaint, union(ellipse(320, 380, 160, 130), rect(190, 380, 450, 500, 40)))
	p.add(matPaintDark, rect(180, 492, 460, 516, 10))
	p.add(matPaintDark, ellipse(320, 262, 90, 24))
	p.add(matSteel, circle(320, 232, 20))
	p.fill(matPaintLight, ellipse(250, 360, 30, 60))
}

func drawSpiceGrinder(p *pic) {
	p.add(matSteel, circle(320, 118, 22))
	p.add(matPaintDark, union(ellipse(320, 190, 88, 70), rect(250, 190, 390, 240, 10)))
	p.add(matSteelDark, rect(236, 236, 404, 262, 8))
	p.add(matPaint, union(poly(252, 260, 388, 260, 360, 380, 280, 380), poly(280, 380, 360, 380, 400, 510, 240, 510)))
	p.fill(matPaintLight, line(276, 290, 262, 490, 16))
	for _, c := range [][2]float64{{170, 500}, {196, 520}, {460, 506}, {480, 486}, {440, 522}} {
		p.add(matInk, circle(c[0], c[1], 10))
	}
}

func drawMixingBowls(p *pic) {
	bowl := func(cy, rx, ry float64, m material) {
		p.add(m, lower(ellipse(320, cy, rx, ry), cy))
		p.add(m, ellipse(320, cy, rx, ry*0.22))
		p.fill(matPaintDark, ellipse(320, cy, rx-14, ry*0.22-8))
	}
	bowl(260, 170, 190, matPaintLight)
	bowl(330, 200, 170, matPaint)
	bowl(400, 230, 140, matPaintDark)
	p.fill(matPaint, ellipse(320, 400, 216, 22))
}

func drawSaucepan(p *pic) {
	p.add(matInk, rot(rect(390, 290, 600, 322, 16), -10, 390, 306))
	p.add(matPaint, rect(120, 250, 400, 500, 28))
	p.add(matPaintDark, rect(106, 236, 414, 270, 14))
	p.fill(matPaintLight, rect(150, 300, 176, 460, 12))
	p.add(matSteel, rect(236, 190, 284, 236, 12))
}

func drawBlanket(p *pic) {
	for i, m := range []material{matPaintDark, matPaint, matPaintLight} {
		y := 420 - float64(i)*90
		p.add(m, rect(120, y-60, 520, y+40, 40))
		for x := 170.0; x < 500; x += 60 {
			p.fill(matPaintDark, line(x, y-50, x, y+30, 6))
		}
	}
	for x := 140.0; x <= 500; x += 24 {
		p.fill(matPaintDark, line(x, 460, x, 500, 6))
	}
}

func drawVase(p *pic) {
	p.add(matPaint, union(ellipse(320, 390, 140, 130), rect(264, 180, 376, 300, 20), ellipse(320, 176, 74, 22)))
	p.fill(matPaintDark, ellipse(320, 174, 54, 12))
	p.fill(matPaintLight, clip(ellipse(320, 390, 140, 130), rect(150, 360, 490, 400, 0)))
	for x := 200.0; x <= 440; x += 48 {
		p.fill(matPaintDark, circle(x, 380, 8))
	}
	p.fill(matPaintLight, ellipse(240, 430, 16, 40))
}

func drawCandle(p *pic) {
	p.add(matSteel, ellipse(320, 500, 170, 34))
	p.add(matPaint, rect(220, 220, 420, 500, 20))
	p.fill(matPaintLight, rect(240, 240, 262, 470, 10))
	p.fill(matPaintDark, ellipse(320, 222, 100, 14))
	p.add(matPaintLight, line(380, 226, 380, 300, 18))
	p.add(matInk, line(320, 222, 320, 190, 6))
	p.add(matGlow, drop(320, 160, 26))
	p.fill(matRed, drop(320, 166, 11))
}

func drawWallClock(p *pic) {
	p.noShadow = true
	p.add(matPaint, circle(320, 320, 210))
	p.add(matPaper, circle(320, 320, 176))
	for i := range 12 {
		l := 20.0
		if i%3 == 0 {
			l = 34
		}
		p.fill(matInk, rot(line(320, 160, 320, 160+l, 8), float64(i*30), 320, 320))
	}
	p.add(matInk, rot(line(320, 320, 320, 220, 14), 300, 320, 320))
	p.add(matInk, rot(line(320, 320, 320, 190, 10), 60, 320, 320))
	p.fill(matRed, rot(line(320, 340, 320, 180, 4), 150, 320, 320))
	p.add(matPaintDark, circle(320, 320, 12))
}

func drawTableLamp(p *pic) {
	p.add(matPaintDark, ellipse(320, 510, 110, 24))
	p.add(matSteelDark, rect(308, 290, 332, 500, 6))
	p.fill(matGlow, ellipse(320, 300, 120, 30))
	p.add(matPaint, poly(220, 110, 420, 110, 490, 300, 150, 300))
	p.fill(matPaintLight, poly(240, 130, 280, 130, 230, 280, 180, 280))
	p.add(matPaintDark, rect(150, 292, 490, 306, 6))
}

func drawBasket(p *pic) {
	p.add(matPaint, arc(320, 270, 150, 180, 360, 22))
	body := poly(130, 270, 510, 270, 460, 510, 180, 510)
	p.add(matPaint, body)
	for y := 300.0; y < 500; y += 40 {
		p.fill(matPaintDark, clip(line(100, y, 540, y, 8), body))
	}
	for x := 170.0; x < 480; x += 50 {
		p.fill(matPaintLight, clip(line(x, 270, x+(x-320)*-0.15, 510, 8), body))
	}
	p.add(matPaintDark, rect(116, 250, 524, 286, 14))
}

func drawPictureFrame(p *pic) {
	p.noShadow = true
	p.add(matInk, line(320, 110, 210, 170, 4))
	p.add(matInk, line(320, 110, 430, 170, 4))
	p.add(matPaint, rect(130, 160, 510, 500, 10))
	p.add(matPaper, rect(170, 200, 470, 460, 4))
	sky := rect(200, 230, 440, 430, 0)
	p.fill(matPaintLight, sky)
	p.fill(matGlow, circle(390, 280, 28))
	p.fill(matGreen, clip(ellipse(260, 450, 140, 100), sky))
	p.fill(matPaintDark, clip(ellipse(400, 470, 140, 100), sky))
}

func drawDoormat(p *pic) {
	mat := poly(150, 230, 490, 230, 580, 460, 60, 460)
	p.add(matPaint, mat)
	p.fill(matPaintDark, cut(poly(170, 246, 470, 246, 548, 444, 92, 444), poly(190, 262, 450, 262, 516, 428, 124, 428)))
	for i, w := range []float64{120, 170, 90} {
		y := 300 + float64(i)*44
		p.fill(matPaintDark, line(320-w, y, 320+w, y, 18))
	}
}
