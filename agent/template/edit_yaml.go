package template

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// applyYAML sets dotted mapping paths in a YAML document through its node
// tree, so comments and the order of keys are kept (the layout is
// re-indented by two). A replaced integer, float or boolean must be given
// as one and keeps its type; missing mappings along the path are created.
func applyYAML(content []byte, set map[string]string) ([]byte, error) {
	var doc yaml.Node
	if len(bytes.TrimSpace(content)) > 0 {
		if err := yaml.Unmarshal(content, &doc); err != nil {
			return nil, fmt.Errorf("yaml config: %w", err)
		}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("yaml config: not a mapping")
	}
	for _, k := range sortedKeys(set) {
		if err := setYAML(doc.Content[0], k, set[k]); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("yaml config: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("yaml config: %w", err)
	}
	return b.Bytes(), nil
}

// yamlChild is the value node of key in mapping m, or nil.
func yamlChild(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func setYAML(m *yaml.Node, key, value string) error {
	parts := strings.Split(key, ".")
	for i, p := range parts[:len(parts)-1] {
		next := yamlChild(m, p)
		if next == nil {
			next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p}, next)
		}
		if next.Kind != yaml.MappingNode {
			return fmt.Errorf("set %q: %s is not a mapping", key, strings.Join(parts[:i+1], "."))
		}
		m = next
	}
	last := parts[len(parts)-1]
	leaf := yamlChild(m, last)
	if leaf == nil {
		leaf = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str"}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: last}, leaf)
	}
	if leaf.Kind != yaml.ScalarNode || leaf.Alias != nil || leaf.Anchor != "" {
		return fmt.Errorf("set %q: the file holds a mapping, a list or an anchor here", key)
	}
	if err := yamlTyped(leaf.ShortTag(), value); err != nil {
		return fmt.Errorf("set %q: %w", key, err)
	}
	tag := leaf.ShortTag()
	if tag != "!!int" && tag != "!!float" && tag != "!!bool" {
		tag = "!!str"
	}
	leaf.Tag, leaf.Value, leaf.Style = tag, value, 0
	if tag == "!!str" && yaml11Special(value) {
		leaf.Style = yaml.DoubleQuotedStyle
	}
	return nil
}

// yaml11Special: a string that YAML 1.1 readers (many games' parsers)
// take for a boolean; the encoder, which writes YAML 1.2, would leave it
// bare, so it is quoted.
func yaml11Special(s string) bool {
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off":
		return true
	}
	return false
}

// yamlTyped: a value replacing an int, float or bool must be one.
func yamlTyped(tag, value string) error {
	var err error
	switch tag {
	case "!!int":
		_, err = strconv.ParseInt(value, 10, 64)
	case "!!float":
		_, err = strconv.ParseFloat(value, 64)
	case "!!bool":
		if value != "true" && value != "false" {
			err = errors.New("not true or false")
		}
	}
	if err != nil {
		return fmt.Errorf("the file holds a %s here, and %q is not one", strings.TrimPrefix(tag, "!!"), value)
	}
	return nil
}
