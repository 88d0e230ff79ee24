package keys

// SettingsChannel is the Pub/Sub channel on which a change of the shop's
// settings, home page or information pages is announced: every instance
// reads them again from the database. The message is empty.
const SettingsChannel = "merchant:changed"
