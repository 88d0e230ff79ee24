package seed

// Outdoors, garden and sports.

func drawTent(p *pic) {
	p.add(matInk, line(320, 120, 320, 90, 8))
	p.fill(matInk, line(120, 500, 60, 520, 4))
	p.fill(matInk, line(520, 500, 580, 520, 4))
	p.add(matPaint, poly(320, 120, 560, 500, 80, 500))
	p.fill(matPaintLight, poly(320, 130, 330, 150, 140, 490, 100, 490))
	p.add(matPaintDark, poly(320, 260, 400, 500, 240, 500))
	p.fill(matInk, line(320, 270, 320, 496, 4))
}

func drawSleepingBag(p *pic) {
	const a = -24
	body := union(ellipse(320, 190, 120, 100), poly(200, 190, 440, 190, 390, 520, 250, 520), ellipse(320, 520, 70, 30))
	p.add(matPaint, rot(body, a, 320, 340))
	for y := 260.0; y < 520; y += 50 {
		p.fill(matPaintDark, rot(clip(line(180, y, 460, y, 6), body), a, 320, 340))
	}
	p.add(matPaintDark, rot(ellipse(320, 190, 80, 66), a, 320, 340))
	p.fill(matPaintLight, rot(ellipse(320, 196, 50, 40), a, 320, 340))
	p.fill(matSteelDark, rot(line(400, 200, 380, 500, 6), a, 320, 340))
}

func drawCampStove(p *pic) {
	p.add(matPaint, rect(240, 340, 400, 510, 36))
	p.fill(matPaintLight, rect(262, 370, 284, 480, 10))
	p.add(matSteelDark, rect(300, 310, 340, 344, 6))
	p.add(matSteel, rect(250, 290, 390, 316, 10))
	for _, x := range []float64{200, 440} {
		p.add(matSteelDark, line(320, 300, x, 270, 10))
	}
	p.add(matGlow, union(drop(280, 270, 22), drop(320, 262, 30), drop(360, 270, 22)))
	p.fill(matRed, drop(320, 266, 12))
}

func drawHeadlamp(p *pic) {
	p.add(matPaint, ellipseRing(320, 320, 210, 120, 36))
	p.fill(matPaintDark, clip(ellipseRing(320, 320, 210, 120, 10), rect(100, 330, 540, 460, 0)))
	p.add(matInk, rect(230, 360, 410, 470, 30))
	p.add(matGlow, circle(320, 415, 40))
	p.fill(matPaper, circle(306, 402, 12))
	p.add(matSteel, rect(370, 372, 396, 390, 6))
}

func drawDaypack(p *pic) {
	p.add(matPaintDark, line(210, 200, 180, 460, 30))
	p.add(matPaintDark, line(430, 200, 460, 460, 30))
	p.add(matInk, arc(320, 170, 46, 180, 360, 14))
	p.add(matPaint, rect(190, 160, 450, 510, 80))
	p.fill(matSteelDark, arc(320, 300, 110, 200, 340, 6))
	p.add(matPaintDark, rect(230, 360, 410, 480, 36))
	p.fill(matSteelDark, line(250, 384, 390, 384, 6))
	p.add(matInk, line(320, 382, 320, 412, 8))
}

func drawWaterFilter(p *pic) {
	p.add(matPaintDark, rect(262, 120, 378, 180, 16))
	p.add(matPaint, rect(240, 170, 400, 500, 40))
	for y := 230.0; y < 470; y += 44 {
		p.fill(matPaintDark, line(244, y, 396, y, 10))
	}
	p.add(matPaintDark, rect(292, 500, 348, 530, 8))
	p.add(matPaintLight, drop(470, 470, 44))
	p.fill(matPaper, ellipse(456, 456, 10, 16))
}

func drawHammock(p *pic) {
	p.add(matWood, rect(70, 150, 110, 510, 12))
	p.add(matWood, rect(530, 150, 570, 510, 12))
	p.fill(matInk, line(110, 200, 180, 300, 5))
	p.fill(matInk, line(530, 200, 460, 300, 5))
	p.add(matPaint, cut(ellipse(320, 290, 150, 150), ellipse(320, 220, 190, 150)))
	p.fill(matPaintDark, cut(ellipse(320, 300, 130, 126), ellipse(320, 236, 170, 136)))
}

func drawTrekkingPoles(p *pic) {
	for _, side := range []float64{-1, 1} {
		x0, x1 := 320-side*130, 320+side*70
		p.add(matSteel, line(x0, 200, x1, 520, 14))
		p.add(matPaintDark, ellipse(x1+side*-8, 480, 38, 12))
		p.add(matInk, arc(x0-side*10, 160, 40, 120, 240, 10))
		p.add(matPaint, rot(rect(x0-22, 110, x0+22, 240, 18), side*-22, x0, 200))
	}
}

func drawShears(p *pic) {
	p.add(matPaint, line(300, 330, 180, 520, 40))
	p.add(matPaint, line(340, 330, 460, 520, 40))
	p.add(matSteel, cut(ellipse(280, 220, 50, 140), ellipse(250, 200, 40, 140)))
	p.add(matSteel, cut(ellipse(360, 220, 50, 140), ellipse(390, 200, 40, 140)))
	p.add(matSteelDark, circle(320, 320, 20))
	p.fill(matPaintDark, line(200, 480, 240, 420, 10))
	p.fill(matPaintDark, line(440, 480, 400, 420, 10))
}

func drawWateringCan(p *pic) {
	p.add(matPaint, rot(rect(90, 250, 270, 280, 14), -34, 270, 340))
	p.add(matSteelDark, rot(rect(60, 236, 104, 294, 10), -34, 270, 340))
	p.add(matPaint, arc(320, 260, 100, 200, 340, 26))
	p.add(matPaint, rect(210, 250, 450, 500, 40))
	p.fill(matPaintLight, rect(236, 280, 262, 470, 12))
	p.add(matPaintDark, rect(200, 470, 460, 500, 12))
}

func drawRaisedBed(p *pic) {
	p.add(matWoodDark, ellipse(320, 300, 230, 40))
	for _, x := range []float64{200, 300, 400, 460} {
		p.add(matGreen, line(x, 300, x, 220, 8))
		p.add(matGreen, rot(ellipse(x+22, 220, 26, 12), -30, x+22, 220))
		p.add(matGreen, rot(ellipse(x-22, 234, 26, 12), 30, x-22, 234))
	}
	p.add(matPaint, rect(90, 300, 550, 500, 8))
	for _, y := range []float64{366, 432} {
		p.fill(matPaintDark, line(94, y, 546, y, 6))
	}
	for _, x := range []float64{120, 520} {
		p.fill(matPaintDark, rect(x-12, 300, x+12, 500, 2))
	}
}

func drawSeedTray(p *pic) {
	p.add(matPaintDark, poly(90, 330, 550, 330, 510, 500, 130, 500))
	for i := range 4 {
		for j := range 2 {
			x, y := 170+float64(i)*100, 370+float64(j)*70
			p.add(matPaint, rect(x-40, y-26, x+40, y+26, 8))
			p.fill(matWoodDark, ellipse(x, y-10, 30, 10))
			if j == 0 {
				p.add(matGreen, line(x, y-12, x, y-80, 7))
				p.add(matGreen, rot(ellipse(x+18, y-82, 20, 10), -25, x+18, y-82))
				p.add(matGreen, rot(ellipse(x-18, y-82, 20, 10), 25, x-18, y-82))
			}
		}
	}
}

func drawKneeler(p *pic) {
	for _, x := range []float64{170, 470} {
		p.add(matSteelDark, union(line(x, 500, x, 250, 22), arc(x, 250, 50, 180, 360, 22)))
	}
	p.add(matPaint, rect(130, 380, 510, 450, 30))
	p.fill(matPaintLight, rect(160, 392, 480, 406, 6))
	p.add(matPaintDark, rect(150, 450, 490, 470, 6))
}

func drawCompostBin(p *pic) {
	body := poly(190, 190, 450, 190, 490, 500, 150, 500)
	p.add(matPaint, body)
	for x := 220.0; x <= 420; x += 50 {
		p.fill(matPaintDark, clip(line(x, 190, x+(x-320)*0.25, 500, 10), body))
	}
	p.add(matPaintDark, rect(250, 400, 390, 480, 10))
	p.add(matPaintDark, rect(170, 150, 470, 196, 20))
	p.add(matPaintDark, rect(290, 124, 350, 156, 10))
	p.add(matGreen, rot(union(circle(300, 300, 30), circle(340, 300, 30)), -30, 320, 300))
}

func drawTrowel(p *pic) {
	const a = 40
	blade := union(ellipse(320, 250, 90, 120), poly(230, 250, 410, 250, 320, 100))
	p.add(matSteel, rot(blade, a, 320, 320))
	p.fill(matSteelDark, rot(line(320, 130, 320, 350, 8), a, 320, 320))
	p.add(matSteelDark, rot(line(320, 360, 320, 410, 18), a, 320, 320))
	p.add(matPaint, rot(rect(292, 400, 348, 560, 26), a, 320, 320))
	p.fill(matPaintDark, rot(circle(320, 530, 8), a, 320, 320))
}

func drawHoseReel(p *pic) {
	p.add(matPaintDark, line(190, 500, 260, 330, 18))
	p.add(matPaintDark, line(450, 500, 380, 330, 18))
	p.add(matPaint, circle(320, 310, 170))
	for r := 150.0; r >= 70; r -= 22 {
		p.fill(matGreen, ring(320, 310, r, 9))
	}
	p.add(matPaintDark, circle(320, 310, 44))
	p.add(matSteel, line(320, 310, 440, 200, 14))
	p.add(matInk, rect(430, 170, 470, 210, 10))
	p.add(matGreen, line(400, 440, 560, 500, 20))
}

func drawYogaMat(p *pic) {
	p.add(matPaintLight, poly(300, 380, 560, 380, 610, 500, 300, 500))
	p.add(matPaint, rect(90, 300, 330, 500, 100))
	p.add(matPaint, circle(320, 400, 100))
	for r := 80.0; r >= 20; r -= 20 {
		p.fill(matPaintDark, ring(320, 400, r, 4))
	}
	p.add(matInk, rect(170, 296, 194, 504, 4))
}

func drawJumpRope(p *pic) {
	p.add(matPaintDark, union(arc(320, 250, 180, 150, 390, 10), line(164, 340, 190, 420, 10), line(476, 340, 450, 420, 10)))
	p.add(matPaint, rot(rect(160, 410, 220, 540, 24), -16, 190, 420))
	p.add(matPaint, rot(rect(420, 410, 480, 540, 24), 16, 450, 420))
	p.fill(matPaintLight, rot(rect(176, 430, 190, 520, 6), -16, 190, 420))
}

func drawWaterBottle(p *pic) {
	p.add(matPaintDark, arc(320, 140, 30, 180, 360, 12))
	p.add(matPaintDark, rect(264, 130, 376, 200, 20))
	p.add(matPaint, rect(230, 190, 410, 520, 50))
	p.add(matPaintLight, rect(230, 300, 410, 400, 0))
	p.fill(matPaper, rect(250, 220, 270, 500, 10))
}

func drawBands(p *pic) {
	p.add(matPaintDark, ellipseRing(260, 380, 170, 90, 30))
	p.add(matPaint, ellipseRing(370, 300, 170, 90, 30))
	p.add(matPaintLight, ellipseRing(300, 220, 150, 76, 30))
}

func drawRacket(p *pic) {
	const a = -30
	head := ellipse(320, 230, 120, 150)
	p.add(matPaint, rot(cut(head, ellipse(320, 230, 98, 128)), a, 320, 330))
	for x := 240.0; x <= 400; x += 26 {
		p.fill(matPaper, rot(clip(line(x, 80, x, 380, 4), head), a, 320, 330))
	}
	for y := 120.0; y <= 350; y += 26 {
		p.fill(matPaper, rot(clip(line(180, y, 460, y, 4), head), a, 320, 330))
	}
	p.add(matPaint, rot(poly(280, 370, 360, 370, 334, 430, 306, 430), a, 320, 330))
	p.add(matPaintDark, rot(rect(300, 420, 340, 570, 14), a, 320, 330))
	p.add(matGlow, circle(490, 470, 44))
	p.fill(matPaper, arc(450, 430, 50, -10, 100, 6))
}

func drawGlove(p *pic) {
	for i, x := range []float64{250, 300, 350, 400} {
		p.add(matPaintDark, line(x, 250+float64(i%3)*8, x, 200+float64(i%3)*8, 40))
	}
	p.add(matPaint, line(200, 400, 130, 300, 44))
	p.add(matPaint, rect(210, 230, 440, 460, 50))
	p.fill(matPaintLight, ellipse(300, 340, 50, 40))
	p.fill(matPaintLight, ellipse(390, 360, 34, 40))
	p.add(matPaintDark, rect(200, 440, 450, 510, 20))
	p.fill(matInk, rect(380, 452, 430, 498, 8))
}

func drawFoamRoller(p *pic) {
	p.add(matPaint, rect(220, 150, 420, 500, 30))
	for y := 190.0; y < 480; y += 40 {
		for x := 250.0; x < 410; x += 40 {
			off := 0.0
			if int(y/40)%2 == 0 {
				off = 20
			}
			p.fill(matPaintDark, rect(x+off-10, y-10, x+off+10, y+10, 4))
		}
	}
	p.add(matPaintLight, ellipse(320, 150, 100, 26))
	p.add(matInk, ellipse(320, 150, 36, 10))
}

func drawBasketball(p *pic) {
	ball := circle(320, 320, 200)
	p.add(matPaint, ball)
	p.fill(matInk, line(320, 120, 320, 520, 8))
	p.fill(matInk, line(120, 320, 520, 320, 8))
	p.fill(matInk, clip(ring(60, 320, 200, 4), ball))
	p.fill(matInk, clip(ring(580, 320, 200, 4), ball))
	p.fill(matPaintLight, ellipse(250, 220, 30, 20))
}
