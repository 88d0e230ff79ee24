package web

import "log/slog"

// LevelAudit is the level of the admin's audit lines: above every level
// LOG_LEVEL can name, so an operator who quiets the request lines
// (LOG_LEVEL=warn, or error) still keeps the record of who changed what.
const LevelAudit = slog.LevelError + 4

// LogOptions are the options of the shop's JSON log handler for the
// lowest level logged: LevelAudit lines are written with the level
// "AUDIT" rather than slog's "ERROR+4".
func LogOptions(level slog.Level) *slog.HandlerOptions {
	return &slog.HandlerOptions{Level: level, ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.LevelKey {
			if l, ok := a.Value.Any().(slog.Level); ok && l == LevelAudit {
				return slog.String(slog.LevelKey, "AUDIT")
			}
		}
		return a
	}}
}
