package session

// StoreError passes a failed call's error through the store's
// classification, when it has one (the SQLite store's Classify): a
// database found damaged is DATABASE_CORRUPT naming the file and the
// cause, whatever the tool wrapped it in, instead of INTERNAL.
func (s *Session) StoreError(err error) error {
	if c, ok := s.store.(interface{ Classify(error) error }); ok && err != nil {
		return c.Classify(err)
	}
	return err
}
