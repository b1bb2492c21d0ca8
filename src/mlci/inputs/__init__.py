"""The input gate: every public function takes its data and options through here."""
