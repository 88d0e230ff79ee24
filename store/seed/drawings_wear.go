package seed

// Toys and apparel.

func drawBlocks(p *pic) {
	brick := func(x, y, w float64, m material) {
		for sx := x + 30; sx < x+w; sx += 60 {
			p.add(m, rect(sx-18, y-22, sx+18, y+4, 4))
		}
		p.add(m, rect(x, y, x+w, y+80, 8))
	}
	brick(110, 420, 240, matPaint)
	brick(350, 420, 180, matPaintDark)
	brick(200, 320, 240, matPaintLight)
	brick(260, 220, 120, matPaint)
}

func drawPuzzle(p *pic) {
	piece := func(x, y float64, m material) {
		s := union(rect(x, y, x+180, y+180, 10), circle(x+180+26, y+90, 34), circle(x+90, y-26, 34))
		s = cut(s, union(circle(x+90, y+180+10, 34), circle(x-10, y+90, 34)))
		p.add(m, s)
	}
	piece(120, 250, matPaint)
	piece(330, 250, matPaintLight)
}

func drawTrain(p *pic) {
	for x := 60.0; x <= 580; x += 52 {
		p.fill(matWoodDark, rect(x-16, 490, x+16, 510, 3))
	}
	p.fill(matSteelDark, rect(40, 482, 600, 490, 2))
	p.add(matPaintLight, rect(60, 330, 210, 450, 12))
	p.add(matInk, rect(200, 410, 240, 424, 4))
	p.add(matPaint, rect(240, 340, 470, 450, 20))
	p.add(matPaintDark, rect(420, 240, 560, 450, 12))
	p.fill(matPaper, rect(448, 270, 532, 330, 6))
	p.add(matPaintDark, rect(280, 270, 320, 344, 6))
	p.add(matPaintDark, rect(410, 230, 570, 252, 8))
	for _, x := range []float64{100, 170, 290, 370, 490} {
		p.add(matWood, circle(x, 460, 30))
		p.fill(matWoodDark, circle(x, 460, 9))
	}
}

func drawKite(p *pic) {
	p.noShadow = true
	p.fill(matInk, union(line(320, 490, 280, 540, 4), line(280, 540, 330, 590, 4), line(330, 590, 290, 630, 4)))
	for _, c := range [][2]float64{{280, 540}, {330, 590}} {
		p.add(matRed, union(poly(c[0], c[1], c[0]-26, c[1]-14, c[0]-26, c[1]+14), poly(c[0], c[1], c[0]+26, c[1]-14, c[0]+26, c[1]+14)))
	}
	p.add(matPaint, poly(320, 60, 490, 250, 320, 490, 150, 250))
	p.fill(matPaintLight, poly(320, 66, 484, 250, 320, 250))
	p.fill(matPaintLight, poly(320, 250, 320, 484, 156, 250))
	p.fill(matWoodDark, line(320, 66, 320, 484, 6))
	p.fill(matWoodDark, line(156, 250, 484, 250, 6))
}

func drawBoardGame(p *pic) {
	p.add(matPaint, poly(160, 230, 480, 230, 560, 470, 80, 470))
	p.fill(matPaper, poly(190, 250, 450, 250, 520, 450, 120, 450))
	for i := range 5 {
		for j := range 4 {
			if (i+j)%2 == 0 {
				t := float64(j) / 4
				x0 := 190 - 70*t + float64(i)*(260+140*t)/5
				p.fill(matPaintLight, box(x0+26+6*t, 275+float64(j)*50, 22+6*t, 18, 3))
			}
		}
	}
	p.add(matPaintDark, union(circle(260, 300, 28), poly(232, 400, 288, 400, 270, 310, 250, 310)))
	p.add(matPaper, rot(rect(380, 330, 460, 410, 12), 15, 420, 370))
	for _, c := range [][2]float64{{400, 350}, {420, 370}, {440, 390}} {
		p.fill(matInk, rot(circle(c[0], c[1], 7), 15, 420, 370))
	}
}

func drawBear(p *pic) {
	p.add(matPaint, circle(220, 140, 44))
	p.add(matPaint, circle(420, 140, 44))
	p.fill(matPaintLight, circle(220, 140, 22))
	p.fill(matPaintLight, circle(420, 140, 22))
	p.add(matPaint, ellipse(180, 360, 50, 70))
	p.add(matPaint, ellipse(460, 360, 50, 70))
	p.add(matPaint, ellipse(230, 480, 64, 50))
	p.add(matPaint, ellipse(410, 480, 64, 50))
	p.add(matPaint, ellipse(320, 380, 130, 140))
	p.fill(matPaintLight, ellipse(320, 400, 80, 90))
	p.add(matPaint, circle(320, 220, 110))
	p.fill(matPaintLight, ellipse(320, 260, 50, 38))
	p.fill(matInk, ellipse(320, 244, 16, 11))
	p.fill(matInk, circle(280, 200, 11))
	p.fill(matInk, circle(360, 200, 11))
}

func drawMarbleRun(p *pic) {
	p.add(matWood, rect(150, 100, 180, 520, 6))
	p.add(matWood, rect(460, 100, 490, 520, 6))
	for i := range 4 {
		y := 170 + float64(i)*95
		if i%2 == 0 {
			p.add(matPaint, line(180, y, 460, y+50, 20))
		} else {
			p.add(matPaintLight, line(460, y, 180, y+50, 20))
		}
	}
	for _, c := range []struct {
		x, y float64
		m    material
	}{{230, 160, matRed}, {380, 287, matGlow}, {260, 376, matGreen}, {400, 476, matRed}} {
		p.add(c.m, circle(c.x, c.y, 18))
	}
	p.add(matWoodDark, rect(120, 500, 520, 530, 8))
}

func drawScienceKit(p *pic) {
	flask := union(poly(300, 240, 340, 240, 450, 500, 190, 500), rect(292, 150, 348, 250, 6))
	p.add(matPaper, flask)
	p.fill(matPaint, clip(flask, rect(150, 380, 500, 500, 0)))
	p.fill(matPaintLight, circle(300, 420, 12))
	p.fill(matPaintLight, circle(350, 450, 8))
	p.add(matPaper, rect(284, 140, 356, 160, 6))
	p.add(matPaper, rect(480, 260, 530, 500, 25))
	p.fill(matPaintDark, clip(rect(480, 380, 530, 500, 25), rect(480, 380, 530, 500, 25)))
	p.add(matWood, rect(450, 330, 560, 350, 4))
	p.fill(matGreen, circle(320, 110, 14))
	p.fill(matGreen, circle(350, 80, 10))
}

// garment is a top with long sleeves: its body from shoulders at y0 to
// hem at y1, sleeves hanging from the shoulders.
func garment(p *pic, y0, y1 float64, m material) {
	p.add(m, rot(rect(80, y0+10, 160, y0+250, 36), 18, 160, y0+10))
	p.add(m, rot(rect(480, y0+10, 560, y0+250, 36), -18, 480, y0+10))
	p.add(m, union(rect(170, y0, 470, y1, 30), poly(170, y0, 250, y0-30, 390, y0-30, 470, y0)))
}

func drawRainJacket(p *pic) {
	garment(p, 180, 520, matPaint)
	p.add(matPaint, ellipse(320, 150, 90, 80))
	p.fill(matPaintDark, ellipse(320, 170, 56, 54))
	p.fill(matSteelDark, line(320, 224, 320, 516, 6))
	p.fill(matPaintDark, line(200, 400, 270, 400, 6))
	p.fill(matPaintDark, line(370, 400, 440, 400, 6))
	for _, c := range [][2]float64{{100, 140}, {540, 120}, {560, 300}} {
		p.add(matPaintLight, drop(c[0], c[1], 14))
	}
}

func drawSocks(p *pic) {
	sock := func(x, y float64, m material) {
		p.add(m, union(rect(x, y, x+100, y+300, 24), rect(x, y+210, x+190, y+300, 45)))
		p.fill(matPaintLight, clip(circle(x+190, y+255, 60), rect(x+140, y+214, x+186, y+296, 40)))
		p.fill(matPaintLight, clip(circle(x+10, y+300, 60), rect(x+4, y+240, x+96, y+296, 24)))
		p.fill(matPaintLight, rect(x+4, y+4, x+96, y+56, 20))
		for sx := x + 20; sx < x+100; sx += 20 {
			p.fill(matPaintDark, line(sx, y+10, sx, y+50, 5))
		}
	}
	sock(110, 130, matPaintDark)
	sock(300, 190, matPaint)
}

func drawShirt(p *pic) {
	garment(p, 160, 520, matPaint)
	p.add(matPaintLight, poly(250, 130, 320, 220, 280, 240, 226, 150))
	p.add(matPaintLight, poly(390, 130, 320, 220, 360, 240, 414, 150))
	for y := 260.0; y < 500; y += 52 {
		p.fill(matPaper, circle(320, y, 8))
	}
	p.fill(matPaintDark, rect(360, 270, 430, 340, 6))
}

func drawSneaker(p *pic) {
	p.add(matPaint, union(poly(140, 250, 300, 250, 470, 340, 570, 380, 570, 450, 110, 450), ellipse(180, 260, 60, 40)))
	p.add(matPaper, rect(90, 440, 590, 490, 24))
	p.fill(matInk, line(100, 466, 580, 466, 4))
	p.add(matPaper, ellipse(530, 420, 50, 34))
	for i := range 4 {
		x := 290 + float64(i)*38
		p.fill(matPaper, line(x, 300+float64(i)*16, x+40, 340+float64(i)*16, 8))
	}
	p.fill(matPaintDark, ellipse(170, 258, 34, 16))
}

func drawBeanie(p *pic) {
	p.add(matPaintLight, circle(320, 140, 50))
	p.add(matPaint, upper(ellipse(320, 400, 190, 230), 400))
	for x := 200.0; x <= 440; x += 40 {
		p.fill(matPaintDark, clip(line(x, 200, x+(x-320)*0.2, 390, 6), ellipse(320, 400, 180, 220)))
	}
	p.add(matPaintDark, rect(120, 360, 520, 470, 24))
	for x := 150.0; x <= 500; x += 26 {
		p.fill(matPaint, line(x, 374, x, 456, 8))
	}
}

func drawPullover(p *pic) {
	garment(p, 170, 500, matPaint)
	p.add(matPaintDark, rect(170, 470, 470, 520, 14))
	p.add(matPaintDark, rect(260, 120, 380, 170, 14))
	p.fill(matSteelDark, line(320, 130, 320, 260, 8))
	p.add(matSteel, rect(312, 250, 328, 276, 4))
	p.add(matPaintDark, poly(230, 360, 410, 360, 430, 450, 210, 450))
	for _, c := range [][2]float64{{230, 230}, {400, 240}, {270, 320}, {380, 310}} {
		p.fill(matPaintLight, circle(c[0], c[1], 6))
	}
}

func drawDenimJacket(p *pic) {
	garment(p, 170, 500, matPaint)
	p.add(matPaintLight, poly(240, 140, 320, 230, 300, 300, 200, 180))
	p.add(matPaintLight, poly(400, 140, 320, 230, 340, 300, 440, 180))
	for _, x := range []float64{250, 390} {
		p.add(matPaintDark, rect(x-40, 300, x+40, 370, 6))
		p.add(matPaintDark, poly(x-44, 296, x+44, 296, x, 330))
		p.fill(matSteel, circle(x, 318, 6))
	}
	p.fill(matPaintDark, line(320, 300, 320, 500, 6))
	for y := 330.0; y < 500; y += 50 {
		p.fill(matSteel, circle(334, y, 7))
	}
	p.fill(matPaintDark, line(174, 440, 466, 440, 5))
}

func drawScarf(p *pic) {
	p.add(matPaint, arc(320, 210, 110, 150, 390, 60))
	p.add(matPaintDark, line(270, 270, 230, 500, 64))
	p.add(matPaint, line(360, 280, 400, 520, 64))
	for _, s := range [][4]float64{{230, 500, 232, 530}, {400, 520, 400, 552}} {
		for dx := -24.0; dx <= 24; dx += 12 {
			p.fill(matPaintDark, line(s[0]+dx, s[1]+30, s[2]+dx, s[3]+30, 5))
		}
	}
	for _, y := range []float64{380, 440} {
		p.fill(matPaintLight, clip(line(180, y, 460, y+20, 14), union(line(270, 270, 230, 500, 64), line(360, 280, 400, 520, 64))))
	}
}
