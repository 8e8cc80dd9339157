package template

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// applyXML sets the text of slash-separated element paths ("Config/Port",
// from the root element) by splicing the original bytes: everything but
// the edited text (declarations, comments, attributes, layout) is kept.
// The first element on the path is edited; a missing one is added as the
// last child of the deepest one present (a missing root makes the
// document). An element that holds elements cannot be given text.
func applyXML(content []byte, set map[string]string) ([]byte, error) {
	for _, k := range sortedKeys(set) {
		var err error
		if content, err = setXML(content, k, set[k]); err != nil {
			return nil, err
		}
	}
	return content, nil
}

// xmlSpot is where an edit goes in a document: the byte range [from, to)
// to replace, and what to put there.
type xmlSpot struct {
	from, to int64
	text     string
}

func setXML(content []byte, key, value string) ([]byte, error) {
	var esc bytes.Buffer
	if err := xml.EscapeText(&esc, []byte(value)); err != nil {
		return nil, fmt.Errorf("set %q: %w", key, err)
	}
	parts := strings.Split(key, "/")
	if len(bytes.TrimSpace(content)) == 0 {
		return []byte(xmlElements(parts, esc.String()) + "\n"), nil
	}
	spot, err := findXML(content, parts, esc.String())
	if err != nil {
		return nil, fmt.Errorf("set %q: %w", key, err)
	}
	out := append([]byte{}, content[:spot.from]...)
	out = append(out, spot.text...)
	return append(out, content[spot.to:]...), nil
}

// xmlElements is <a><b>text</b></a> for parts a, b.
func xmlElements(parts []string, text string) string {
	if len(parts) == 0 {
		return text
	}
	return "<" + parts[0] + ">" + xmlElements(parts[1:], text) + "</" + parts[0] + ">"
}

func rawName(n xml.Name) string {
	if n.Space != "" {
		return n.Space + ":" + n.Local
	}
	return n.Local
}

// wellFormed reads the whole document with the checking decoder (RawToken,
// which findXML needs for its offsets, does not match end tags).
func wellFormed(content []byte) error {
	d := xml.NewDecoder(bytes.NewReader(content))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("xml config: %w", err)
		}
	}
}

// findXML walks the document's tokens to the spot of the edit.
func findXML(content []byte, parts []string, text string) (xmlSpot, error) {
	if err := wellFormed(content); err != nil {
		return xmlSpot{}, err
	}
	d := xml.NewDecoder(bytes.NewReader(content))
	depth, matched := 0, 0 // elements open; how many of them are on the path
	var textFrom int64     // the target's content starts here
	children := false      // the target holds elements
	roots := 0
	for {
		before := d.InputOffset()
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return xmlSpot{}, fmt.Errorf("xml config: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			if depth == matched && matched < len(parts) && rawName(t.Name) == parts[matched] {
				matched++
				textFrom = d.InputOffset()
			} else if matched == len(parts) && depth == matched {
				children = true
			}
			depth++
		case xml.EndElement:
			depth--
			switch {
			case depth == len(parts)-1 && matched == len(parts):
				if children {
					return xmlSpot{}, errors.New("the element holds elements")
				}
				if before == textFrom && bytes.HasSuffix(content[:textFrom], []byte("/>")) { // <a/>
					return xmlSpot{from: textFrom - 2, to: textFrom, text: ">" + text + "</" + parts[depth] + ">"}, nil
				}
				return xmlSpot{from: textFrom, to: before, text: text}, nil
			case depth == matched-1 && matched < len(parts): // the path's deepest element ends: add the rest
				if before == textFrom && bytes.HasSuffix(content[:textFrom], []byte("/>")) {
					return xmlSpot{from: textFrom - 2, to: textFrom,
						text: ">" + xmlElements(parts[matched:], text) + "</" + parts[depth] + ">"}, nil
				}
				return xmlSpot{from: before, to: before, text: xmlElements(parts[matched:], text)}, nil
			}
		}
	}
	if roots != 1 || depth != 0 {
		return xmlSpot{}, errors.New("xml config: not one root element")
	}
	return xmlSpot{}, fmt.Errorf("the root element is not <%s>", parts[0])
}
