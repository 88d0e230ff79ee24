package seed

// Books, electronics and office.

func drawFieldGuide(p *pic) {
	book(p, 180, 120, 440, 510)
	p.fill(matPaper, rect(230, 160, 410, 200, 6))
	leaf := clip(circle(280, 330, 110), circle(400, 330, 110))
	p.add(matGreen, rot(leaf, -40, 340, 330))
	p.fill(matPaintDark, rot(line(260, 330, 420, 330, 6), -40, 340, 330))
	p.add(matWoodDark, line(290, 400, 260, 450, 10))
}

func drawCookbook(p *pic) {
	book(p, 180, 120, 440, 510)
	p.add(matPaper, circle(310, 310, 100))
	p.fill(matPaintLight, ring(310, 310, 76, 3))
	p.add(matPaintDark, union(ellipse(270, 260, 22, 34), line(270, 280, 270, 380, 14)))
	fork := union(rect(330, 226, 370, 280, 8), line(350, 270, 350, 380, 14))
	p.add(matPaintDark, cut(fork, union(rect(339, 216, 344, 258, 0), rect(356, 216, 361, 258, 0))))
	p.fill(matPaper, rect(230, 440, 390, 460, 6))
}

func drawTravelJournal(p *pic) {
	p.add(matRed, union(line(300, 500, 300, 560, 16), poly(292, 560, 308, 560, 300, 548)))
	book(p, 180, 120, 440, 510)
	p.add(matInk, rect(396, 114, 414, 516, 4))
	p.add(matPaintLight, circle(300, 300, 70))
	p.fill(matPaintDark, ring(300, 300, 56, 4))
	p.fill(matRed, poly(300, 240, 314, 300, 286, 300))
	p.fill(matPaper, poly(300, 360, 314, 300, 286, 300))
}

func drawAtlas(p *pic) {
	book(p, 100, 190, 520, 480)
	p.add(matPaintLight, circle(310, 335, 100))
	p.fill(matGreen, union(ellipse(280, 300, 40, 30), ellipse(350, 370, 34, 44), ellipse(330, 280, 20, 14)))
	p.fill(matPaintDark, ellipseRing(310, 335, 50, 100, 5))
	p.fill(matPaintDark, line(210, 335, 410, 335, 5))
}

func drawPoetry(p *pic) {
	book(p, 220, 110, 420, 520)
	p.add(matPaper, rot(union(ellipse(320, 280, 40, 140), line(320, 300, 320, 460, 6)), 25, 320, 320))
	p.fill(matPaintLight, rot(line(320, 160, 320, 400, 4), 25, 320, 320))
}

func drawSketchbook(p *pic) {
	p.add(matPaper, rect(120, 200, 520, 500, 8))
	p.add(matPaint, rect(110, 190, 510, 490, 10))
	for x := 140.0; x <= 480; x += 34 {
		p.add(matSteelDark, ellipseRing(x, 190, 10, 18, 5))
	}
	p.fill(matPaper, rect(150, 240, 470, 450, 4))
	p.fill(matInk, arc(260, 380, 70, 200, 340, 6))
	p.fill(matInk, circle(360, 320, 34))
	p.fill(matPaper, circle(360, 320, 28))
	p.add(matGlow, rot(rect(380, 420, 580, 450, 4), -30, 480, 435))
	p.add(matWood, rot(poly(580, 420, 620, 435, 580, 450), -30, 480, 435))
}

func drawNovel(p *pic) {
	p.add(matPaint, poly(90, 250, 320, 290, 550, 250, 560, 470, 320, 500, 80, 470))
	p.add(matPaper, poly(110, 230, 316, 270, 316, 470, 104, 440))
	p.add(matPaper, poly(324, 270, 530, 230, 536, 440, 324, 470))
	for i := range 6 {
		y := 290 + float64(i)*26
		p.fill(matInk, line(136, y-18+float64(i)*1.5, 290, y+8, 4))
		p.fill(matInk, line(350, y+8, 504, y-18+float64(i)*1.5, 4))
	}
}

func drawAlmanac(p *pic) {
	book(p, 170, 120, 450, 510)
	for i := range 8 {
		p.fill(matGlow, rot(line(280, 220, 280, 246, 8), float64(i*45), 280, 290))
	}
	p.add(matGlow, circle(280, 290, 40))
	p.add(matPaper, cut(circle(360, 400, 50), circle(382, 384, 46)))
	p.fill(matPaper, rect(220, 160, 400, 176, 6))
}

func drawSpeaker(p *pic) {
	p.add(matPaintDark, arc(320, 320, 230, -30, 30, 10))
	p.add(matPaintDark, arc(320, 320, 230, 150, 210, 10))
	p.add(matPaint, rect(130, 220, 510, 440, 90))
	p.fill(matPaintDark, rect(180, 250, 460, 410, 50))
	for y := 270.0; y <= 390; y += 24 {
		for x := 200.0; x <= 440; x += 24 {
			p.fill(matInk, circle(x, y, 5))
		}
	}
	p.add(matInk, rect(280, 200, 360, 222, 8))
}

func drawCharger(p *pic) {
	p.add(matSteel, rect(230, 130, 256, 200, 4))
	p.add(matSteel, rect(324, 130, 350, 200, 4))
	p.add(matPaint, rect(180, 190, 400, 400, 36))
	p.fill(matPaintLight, rect(206, 220, 226, 370, 8))
	p.fill(matInk, rect(270, 340, 310, 360, 8))
	p.add(matInk, union(line(290, 400, 290, 470, 14), line(290, 470, 440, 470, 14), line(440, 470, 470, 420, 14)))
	p.add(matSteel, rot(rect(440, 360, 500, 420, 14), 30, 470, 420))
	p.fill(matInk, rot(rect(456, 376, 484, 384, 4), 30, 470, 420))
}

func drawHeadphones(p *pic) {
	p.add(matPaint, arc(320, 330, 170, 190, 350, 30))
	p.fill(matPaintLight, arc(320, 330, 170, 220, 320, 8))
	for _, x := range []float64{150, 490} {
		p.add(matPaintDark, rect(x-46, 300, x+46, 470, 40))
		p.fill(matInk, rect(x-30, 322, x+30, 448, 26))
	}
}

func drawEReader(p *pic) {
	p.add(matPaint, rect(190, 110, 450, 520, 28))
	p.fill(matPaper, rect(216, 150, 424, 450, 6))
	textLines(p, matSteelDark, 236, 180, 404, 10, 26, 6)
	p.fill(matPaintDark, rect(290, 470, 350, 490, 10))
}

func drawDeskLamp(p *pic) {
	p.fill(matGlow, poly(440, 250, 520, 290, 600, 500, 330, 500))
	p.add(matPaint, ellipse(220, 500, 100, 22))
	p.add(matSteelDark, line(220, 490, 300, 290, 16))
	p.add(matSteelDark, line(300, 290, 440, 220, 16))
	p.add(matPaint, circle(300, 290, 18))
	p.add(matPaint, rot(poly(400, 190, 470, 190, 520, 300, 350, 300), 30, 440, 240))
	p.fill(matGlow, circle(460, 286, 22))
}

func drawPowerBank(p *pic) {
	p.add(matPaint, rect(220, 140, 420, 500, 36))
	p.add(matInk, rect(290, 124, 350, 146, 6))
	p.fill(matPaintLight, poly(330, 220, 270, 330, 320, 330, 300, 420, 370, 290, 320, 290))
	for i := range 4 {
		p.fill(matGlow, circle(275+float64(i)*30, 460, 8))
	}
}

func drawWebcam(p *pic) {
	p.add(matPaintDark, poly(250, 360, 390, 360, 420, 500, 220, 500))
	p.add(matPaint, rect(150, 200, 490, 370, 80))
	p.add(matInk, circle(320, 285, 70))
	p.fill(matSteelDark, ring(320, 285, 50, 6))
	p.fill(matPaper, circle(300, 265, 14))
	p.fill(matGreen, circle(420, 250, 8))
}

func drawKeyboard(p *pic) {
	p.add(matPaintDark, rect(70, 220, 570, 450, 24))
	for r := range 4 {
		for c := range 11 {
			x, y := 110+float64(c)*42, 256+float64(r)*42
			p.add(matPaint, rect(x-16, y-16, x+16, y+16, 6))
		}
	}
	p.add(matPaintLight, rect(200, 412, 440, 438, 6))
}

func drawNotebook(p *pic) {
	p.add(matPaper, rect(200, 130, 480, 510, 8))
	p.add(matPaint, rect(190, 120, 470, 500, 10))
	for y := 150.0; y <= 470; y += 32 {
		p.add(matSteelDark, ellipseRing(190, y, 18, 9, 5))
	}
	p.add(matPaper, rect(250, 200, 420, 290, 8))
	textLines(p, matSteelDark, 270, 226, 400, 3, 22, 5)
}

func drawFountainPen(p *pic) {
	const a = -35
	p.fill(matInk, union(arc(180, 470, 40, 200, 340, 6), arc(250, 470, 40, 20, 160, 6), arc(320, 470, 40, 200, 340, 6)))
	p.add(matSteel, rot(poly(320, 60, 350, 150, 290, 150), a, 320, 320))
	p.fill(matInk, rot(line(320, 90, 320, 140, 3), a, 320, 320))
	p.add(matPaint, rot(rect(290, 150, 350, 330, 14), a, 320, 320))
	p.add(matSteel, rot(rect(286, 326, 354, 344, 4), a, 320, 320))
	p.add(matPaintDark, rot(rect(288, 340, 352, 540, 26), a, 320, 320))
	p.add(matSteel, rot(rect(350, 360, 362, 470, 4), a, 320, 320))
}

func drawDeskOrganizer(p *pic) {
	for i, m := range []material{matRed, matGlow, matGreen, matSteelDark} {
		x := 200 + float64(i)*40
		p.add(m, rect(x-10, 150+float64(i%2)*30, x+10, 340, 4))
		p.add(matWood, poly(x-10, 150+float64(i%2)*30, x+10, 150+float64(i%2)*30, x, 124+float64(i%2)*30))
	}
	p.add(matPaper, rot(rect(380, 160, 410, 340, 2), 10, 400, 340))
	p.add(matPaint, rect(150, 300, 490, 500, 16))
	p.fill(matPaintDark, line(360, 310, 360, 490, 8))
	p.fill(matPaintLight, rect(170, 320, 190, 480, 8))
}

func drawMonitorStand(p *pic) {
	p.add(matInk, rect(150, 110, 490, 330, 14))
	p.fill(matSteelDark, rect(170, 130, 470, 310, 4))
	p.add(matSteelDark, rect(300, 330, 340, 380, 2))
	p.add(matPaint, rect(90, 376, 550, 414, 10))
	p.add(matPaintDark, rect(110, 410, 150, 500, 6))
	p.add(matPaintDark, rect(490, 410, 530, 500, 6))
	p.add(matPaintLight, rect(250, 414, 390, 450, 6))
}

func drawCushion(p *pic) {
	p.add(matSteelDark, line(180, 400, 170, 520, 14))
	p.add(matSteelDark, line(460, 400, 470, 520, 14))
	p.add(matSteelDark, rect(200, 90, 440, 330, 40))
	seat := cut(rect(140, 300, 500, 440, 60), ellipse(320, 440, 50, 40))
	p.add(matPaint, seat)
	p.fill(matPaintDark, clip(ellipseRing(320, 380, 140, 50, 10), seat))
	p.fill(matPaintLight, ellipse(230, 330, 50, 12))
}

func drawLabelMaker(p *pic) {
	tape := rot(rect(250, 100, 560, 160, 4), -12, 250, 160)
	p.add(matPaper, tape)
	for i, w := range []float64{60, 40, 70} {
		x := 300 + float64(i)*90
		p.fill(matInk, rot(line(x, 130, x+w, 130, 14), -12, 250, 160))
	}
	p.add(matPaint, rect(190, 150, 450, 510, 50))
	p.add(matInk, rect(220, 180, 420, 250, 10))
	p.fill(matGlow, line(240, 215, 330, 215, 10))
	for r := range 4 {
		for c := range 7 {
			x, y := 226+float64(c)*28, 280+float64(r)*34
			p.fill(matPaintLight, rect(x, y, x+20, y+24, 5))
		}
	}
	p.add(matPaintDark, rect(250, 430, 390, 470, 12))
}

func drawPlanner(p *pic) {
	for i, m := range []material{matRed, matGlow, matGreen} {
		p.add(m, rect(440, 170+float64(i)*70, 480, 220+float64(i)*70, 8))
	}
	book(p, 170, 110, 450, 510)
	p.fill(matPaper, rect(220, 190, 410, 400, 6))
	for r := range 4 {
		for c := range 5 {
			p.fill(matPaintLight, rect(232+float64(c)*36, 210+float64(r)*46, 258+float64(c)*36, 244+float64(r)*46, 3))
		}
	}
}

func drawPaperTray(p *pic) {
	for i, y := range []float64{260, 420} {
		p.add(matPaper, rect(180, y-70+float64(i)*4, 440, y-10, 2))
		p.add(matPaint, poly(120, y-40, 520, y-40, 500, y+40, 140, y+40))
		p.fill(matPaintLight, line(140, y-20, 500, y-20, 8))
	}
	p.add(matSteelDark, rect(150, 300, 166, 380, 4))
	p.add(matSteelDark, rect(474, 300, 490, 380, 4))
}
