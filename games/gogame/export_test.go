package gogame

// ForgetLegal drops the state's list of legal actions, as a move does, so
// that benchmarks time their generation rather than the list kept.
func (s *State) ForgetLegal() { s.legalOK = false }
