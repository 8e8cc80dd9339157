package terrain

// MinSpawns is the least number of spawn tiles a map has: the spawn area is a disc of
// radius spawnRadius, carved walkable, so a crowd of new players has room.
const MinSpawns = 37

const (
	spawnRadius     = 3  // the spawn disc: dx²+dy² ≤ spawnRadius²+1
	spawnCandidates = 64 // seed-derived places considered for the spawn area
	spawnLook       = 6  // a candidate's score counts the open land within this distance
	// resourceEvery is one resource node per this many tiles (163 on 256×256).
	resourceEvery = 400
)

// largestRegion marks the tiles of the largest 4-connected walkable region (the
// diagonal rule of Step makes 4- and 8-step reachability the same). Ties go to the
// region found first in row order.
func (m *Map) largestRegion() []bool {
	label := make([]int32, len(m.tiles))
	queue := make([]int32, 0, 1024)
	best, bestSize := int32(0), 0
	next := int32(0)
	for start, t := range m.tiles {
		if label[start] != 0 || !t.Walkable() {
			continue
		}
		next++
		label[start] = next
		queue = append(queue[:0], int32(start))
		for head := 0; head < len(queue); head++ {
			i := int(queue[head])
			x, y := i%m.w, i/m.w
			for _, d := range orthogonal {
				nx, ny := x+d.dx, y+d.dy
				j := ny*m.w + nx
				if m.In(nx, ny) && label[j] == 0 && m.tiles[j].Walkable() {
					label[j] = next
					queue = append(queue, int32(j))
				}
			}
		}
		if len(queue) > bestSize {
			best, bestSize = next, len(queue)
		}
	}
	region := make([]bool, len(m.tiles))
	for i, l := range label {
		region[i] = l != 0 && l == best
	}
	return region
}

// placeSpawn picks the spawn area's centre among seed-derived tiles of the largest
// region (the one with the most open land around it) and carves the spawn disc there.
// The disc contains its centre and is 4-connected, so every spawn tile is walkable and
// reachable from the region. When no candidate lies in the region (a tiny map, a region
// hugging the border), the centre is the region's first tile moved off the border, and
// a path of land is carved back to that tile.
func (m *Map) placeSpawn(region []bool) {
	r := newRNG(m.seed, saltSpawn)
	centre, bestScore := -1, -1
	found := 0
	for try := 0; try < spawnCandidates*64 && found < spawnCandidates; try++ {
		// Keep the disc and its surroundings off the border.
		x := spawnLook + r.intn(m.w-2*spawnLook)
		y := spawnLook + r.intn(m.h-2*spawnLook)
		if !region[y*m.w+x] {
			continue
		}
		found++
		if s := m.openLand(x, y); s > bestScore {
			centre, bestScore = y*m.w+x, s
		}
	}
	if centre < 0 {
		centre = m.fallbackCentre(region)
	}
	m.carveSpawn(centre%m.w, centre/m.w, region)
}

// fallbackCentre is the first region tile moved at least spawnRadius off the border,
// joined to that tile by a carved path of land; the map's middle if there is no region.
func (m *Map) fallbackCentre(region []bool) int {
	first := -1
	for i, in := range region {
		if in {
			first = i
			break
		}
	}
	if first < 0 {
		return m.h/2*m.w + m.w/2
	}
	fx, fy := first%m.w, first/m.w
	cx := clamp(fx, spawnRadius, m.w-1-spawnRadius)
	cy := clamp(fy, spawnRadius, m.h-1-spawnRadius)
	for x, y := fx, fy; x != cx || y != cy; {
		if x != cx {
			x += sign(cx - x)
		} else {
			y += sign(cy - y)
		}
		if i := y*m.w + x; !m.tiles[i].Walkable() {
			m.tiles[i] = Land
		}
		region[y*m.w+x] = true
	}
	return cy*m.w + cx
}

func sign(v int) int {
	if v < 0 {
		return -1
	}
	return 1
}

// carveSpawn makes the disc around (cx, cy) spawn tiles.
func (m *Map) carveSpawn(cx, cy int, region []bool) {
	for dy := -spawnRadius; dy <= spawnRadius; dy++ {
		for dx := -spawnRadius; dx <= spawnRadius; dx++ {
			if dx*dx+dy*dy > spawnRadius*spawnRadius+1 {
				continue
			}
			x, y := cx+dx, cy+dy
			m.tiles[y*m.w+x] = Spawn
			region[y*m.w+x] = true
			m.spawns = append(m.spawns, Point{X: uint16(x), Y: uint16(y)})
		}
	}
}

// openLand counts the land and forest tiles within spawnLook of (x, y).
func (m *Map) openLand(x, y int) int {
	n := 0
	for yy := y - spawnLook; yy <= y+spawnLook; yy++ {
		for xx := x - spawnLook; xx <= x+spawnLook; xx++ {
			if t := m.Tile(xx, yy); t == Land || t == Forest {
				n++
			}
		}
	}
	return n
}

// placeResources puts resource nodes on seed-derived dry tiles of the largest region
// (so every node can be reached from the spawn), never on the spawn area.
func (m *Map) placeResources(region []bool) {
	r := newRNG(m.seed, saltResource)
	want := len(m.tiles) / resourceEvery
	for try, placed := 0, 0; try < want*16 && placed < want; try++ {
		i := r.intn(len(m.tiles))
		switch m.tiles[i] {
		case Sand, Land, Forest, Hill:
			if region[i] {
				m.tiles[i] = Resource
				placed++
			}
		}
	}
}
