package seed

// drawings has one drawing for every product type the demo catalog
// names (the nouns of demoCategories), painted in the item's colour:
// kitchen and home in drawings_home.go, outdoors, garden and sports in
// drawings_outside.go, books, electronics and office in
// drawings_desk.go, toys and apparel in drawings_wear.go.
var drawings = map[string]func(*pic){
	"Chef's Knife": drawChefsKnife, "Skillet": drawSkillet, "Dutch Oven": drawDutchOven,
	"Cutting Board": drawCuttingBoard, "Pour-Over Kettle": drawKettle, "Spice Grinder": drawSpiceGrinder,
	"Mixing Bowl Set": drawMixingBowls, "Saucepan": drawSaucepan,

	"Trail Tent": drawTent, "Sleeping Bag": drawSleepingBag, "Camp Stove": drawCampStove,
	"Headlamp": drawHeadlamp, "Daypack": drawDaypack, "Water Filter": drawWaterFilter,
	"Hammock": drawHammock, "Trekking Poles": drawTrekkingPoles,

	"Field Guide": drawFieldGuide, "Cookbook": drawCookbook, "Travel Journal": drawTravelJournal,
	"Atlas": drawAtlas, "Poetry Collection": drawPoetry, "Sketchbook": drawSketchbook,
	"Novel": drawNovel, "Almanac": drawAlmanac,

	"Bluetooth Speaker": drawSpeaker, "USB-C Charger": drawCharger, "Noise-Cancelling Headphones": drawHeadphones,
	"E-Reader": drawEReader, "Desk Lamp": drawDeskLamp, "Power Bank": drawPowerBank,
	"Webcam": drawWebcam, "Mechanical Keyboard": drawKeyboard,

	"Pruning Shears": drawShears, "Watering Can": drawWateringCan, "Raised Bed Kit": drawRaisedBed,
	"Seed Starter Tray": drawSeedTray, "Garden Kneeler": drawKneeler, "Compost Bin": drawCompostBin,
	"Trowel": drawTrowel, "Hose Reel": drawHoseReel,

	"Building Blocks": drawBlocks, "Puzzle": drawPuzzle, "Wooden Train Set": drawTrain,
	"Kite": drawKite, "Board Game": drawBoardGame, "Plush Bear": drawBear,
	"Marble Run": drawMarbleRun, "Science Kit": drawScienceKit,

	"Notebook": drawNotebook, "Fountain Pen": drawFountainPen, "Desk Organizer": drawDeskOrganizer,
	"Monitor Stand": drawMonitorStand, "Ergonomic Chair Cushion": drawCushion, "Label Maker": drawLabelMaker,
	"Planner": drawPlanner, "Paper Tray": drawPaperTray,

	"Rain Jacket": drawRainJacket, "Wool Socks": drawSocks, "Linen Shirt": drawShirt,
	"Canvas Sneakers": drawSneaker, "Beanie": drawBeanie, "Fleece Pullover": drawPullover,
	"Denim Jacket": drawDenimJacket, "Scarf": drawScarf,

	"Throw Blanket": drawBlanket, "Ceramic Vase": drawVase, "Candle": drawCandle,
	"Wall Clock": drawWallClock, "Table Lamp": drawTableLamp, "Storage Basket": drawBasket,
	"Picture Frame": drawPictureFrame, "Doormat": drawDoormat,

	"Yoga Mat": drawYogaMat, "Jump Rope": drawJumpRope, "Water Bottle": drawWaterBottle,
	"Resistance Bands": drawBands, "Tennis Racket": drawRacket, "Cycling Gloves": drawGlove,
	"Foam Roller": drawFoamRoller, "Basketball": drawBasketball,
}

// Helpers the drawings share.

// textLines are short strokes standing for lines of text.
func textLines(p *pic, m material, x0, y0, x1 float64, n int, gap, w float64) {
	for i := range n {
		end := x1
		if i%3 == 2 {
			end = x0 + (x1-x0)*0.6
		}
		p.fill(m, line(x0, y0+float64(i)*gap, end, y0+float64(i)*gap, w))
	}
}

// book is a closed book standing face on: cover, spine and page edges.
func book(p *pic, x0, y0, x1, y1 float64) {
	p.add(matPaper, rect(x1-40, y0+10, x1+8, y1-6, 6))
	for y := y0 + 26; y < y1-20; y += 14 {
		p.fill(matSteel, line(x1-4, y, x1+4, y, 3))
	}
	p.add(matPaint, rect(x0, y0, x1, y1, 10))
	p.fill(matPaintDark, rect(x0+6, y0+6, x0+30, y1-6, 4))
}
