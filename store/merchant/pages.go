package merchant

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Page is one of the shop's information pages (returns policy, contact,
// about): plain text in paragraphs, served at /pages/<Slug> and linked
// from every page's footer.
type Page struct {
	Slug    string
	Title   string
	Body    string // plain text; paragraphs are separated by blank lines
	Updated time.Time
}

// Limits of the information pages.
const (
	MaxPages     = 30
	MaxPageTitle = 80
	MaxSlug      = 60
	MaxPageBody  = 10_000 // bytes
)

// ErrPageNotFound is the answer for a slug no page has.
var ErrPageNotFound = errors.New("no such page")

// slugRE is a slug: lower-case letters and digits in words joined by
// single hyphens, so that it is one path segment that reads well.
var slugRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// tagRE is what makes text read as markup: a tag, a closing tag, a
// comment or a declaration.
var tagRE = regexp.MustCompile(`<[A-Za-z/!?]`)

// PageForm is a page as the admin typed it.
type PageForm struct{ Title, Slug, Body string }

// Normalize checks a page as typed and returns it tidied (trimmed, line
// ends as "\n"), or a *FieldError saying what is wrong.
func (f PageForm) Normalize() (Page, error) {
	var p Page
	var err error
	if p.Title, err = oneLine("title", "The title", f.Title, MaxPageTitle, true); err != nil {
		return Page{}, err
	}
	if p.Slug, err = CheckSlug(f.Slug); err != nil {
		return Page{}, err
	}
	body := strings.TrimSpace(strings.ReplaceAll(f.Body, "\r\n", "\n"))
	switch {
	case body == "":
		return Page{}, &FieldError{"body", "The text is required."}
	case len(body) > MaxPageBody:
		return Page{}, &FieldError{"body", fmt.Sprintf("The text is at most %d bytes (this is %d).", MaxPageBody, len(body))}
	case !utf8.ValidString(body) || strings.ContainsFunc(body, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }):
		return Page{}, &FieldError{"body", "The text contains characters that cannot be shown."}
	case tagRE.MatchString(body):
		return Page{}, &FieldError{"body", "The text is plain: markup such as <a> or <p> is not accepted. Leave a blank line between paragraphs; web addresses (https://...) become links by themselves."}
	}
	p.Body = body
	return p, nil
}

// CheckSlug checks the slug a page is served at (/pages/<slug>).
func CheckSlug(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", &FieldError{"slug", "The slug (the page's address, such as returns-policy) is required."}
	case len(s) > MaxSlug:
		return "", &FieldError{"slug", fmt.Sprintf("The slug is at most %d characters.", MaxSlug)}
	case strings.ContainsAny(s, "/\\"):
		return "", &FieldError{"slug", "The slug is one part of an address: no slashes. Use lower-case letters, digits and hyphens, such as returns-policy."}
	case !slugRE.MatchString(s):
		return "", &FieldError{"slug", fmt.Sprintf("%q is not a slug: use lower-case letters, digits and single hyphens, such as returns-policy.", clip(s, 40))}
	}
	return s, nil
}

// Pages are the information pages in force, by title, from memory.
func (s *Service) Pages() []Page { return s.cur.Load().pages }

// Page is the information page at slug, from memory.
func (s *Service) Page(slug string) (Page, error) {
	for _, p := range s.cur.Load().pages {
		if p.Slug == slug {
			return p, nil
		}
	}
	return Page{}, ErrPageNotFound
}

// SavePage checks and saves a page: a new one (old == ""), or the page
// at old, which may move to another slug. A *FieldError says what is
// wrong and nothing changes; ErrPageNotFound when old names no page.
func (s *Service) SavePage(ctx context.Context, old string, f PageForm) (Page, error) {
	p, err := f.Normalize()
	if err != nil {
		return Page{}, err
	}
	p.Updated = s.clock.Now().UTC().Truncate(time.Second)
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if old != "" {
			res, err := tx.ExecContext(ctx, `DELETE FROM info_pages WHERE slug = $1`, old)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				return ErrPageNotFound
			}
		}
		var count int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM info_pages`).Scan(&count); err != nil {
			return err
		}
		if count >= MaxPages {
			return &FieldError{"slug", fmt.Sprintf("A shop has at most %d pages: delete one first.", MaxPages)}
		}
		// Two admins saving the same slug at once: the second finds it taken.
		res, err := tx.ExecContext(ctx, `INSERT INTO info_pages (slug, title, body, updated_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (slug) DO NOTHING`, p.Slug, p.Title, p.Body, p.Updated.Unix())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return &FieldError{"slug", "Another page already has the slug " + p.Slug + "."}
		}
		return nil
	})
	if err != nil {
		return Page{}, err
	}
	return p, s.saved(ctx)
}

// DeletePage deletes the page at slug (ErrPageNotFound when none is).
func (s *Service) DeletePage(ctx context.Context, slug string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM info_pages WHERE slug = $1`, slug)
	if err != nil {
		return fmt.Errorf("delete page: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("delete page: %w", err)
	} else if n == 0 {
		return ErrPageNotFound
	}
	return s.saved(ctx)
}

// inTx runs f in a transaction; errors other than the domain's are
// wrapped with the operation's name.
func (s *Service) inTx(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("save page: %w", err)
	}
	defer tx.Rollback()
	if err := f(tx); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) || errors.Is(err, ErrPageNotFound) {
			return err
		}
		return fmt.Errorf("save page: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("save page: %w", err)
	}
	return nil
}

// readPages reads every page, by title.
func readPages(ctx context.Context, db *sql.DB) ([]Page, error) {
	rows, err := db.QueryContext(ctx, `SELECT slug, title, body, updated_at FROM info_pages`)
	if err != nil {
		return nil, fmt.Errorf("pages: %w", err)
	}
	defer rows.Close()
	var out []Page
	for rows.Next() {
		var p Page
		var at int64
		if err := rows.Scan(&p.Slug, &p.Title, &p.Body, &at); err != nil {
			return nil, fmt.Errorf("pages: %w", err)
		}
		p.Updated = time.Unix(at, 0).UTC()
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pages: %w", err)
	}
	slices.SortFunc(out, func(a, b Page) int { return strings.Compare(a.Title, b.Title) })
	return out, nil
}
