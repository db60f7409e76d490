/**
 * Windows timezone ids, as Xero sends them in `Organisation.Timezone` (the yaml's `TimeZone` enum:
 * upper-cased, spaces, dots and hyphens removed), mapped to IANA zone names.
 *
 * Source: CLDR `common/supplemental/windowsZones.xml` (unicode-org/cldr), the `territory="001"`
 * (golden) zone of each Windows id. Where CLDR keeps a deprecated IANA alias for stability, the
 * current IANA name is used instead (noted per line); both PostgreSQL's and PGlite's timezone
 * databases and Node's ICU know every name here. Two ids of the Xero enum are Windows zones
 * that CLDR has since dropped ("Kamchatka Standard Time", "Mid-Atlantic Standard Time"); they map
 * to the zones Windows documented for them.
 */
export const WINDOWS_TIMEZONES: Readonly<Record<string, string>> = {
  AFGHANISTANSTANDARDTIME: "Asia/Kabul", // Afghanistan Standard Time
  ALASKANSTANDARDTIME: "America/Anchorage", // Alaskan Standard Time
  ALEUTIANSTANDARDTIME: "America/Adak", // Aleutian Standard Time
  ALTAISTANDARDTIME: "Asia/Barnaul", // Altai Standard Time
  ARABIANSTANDARDTIME: "Asia/Dubai", // Arabian Standard Time
  ARABICSTANDARDTIME: "Asia/Baghdad", // Arabic Standard Time
  ARABSTANDARDTIME: "Asia/Riyadh", // Arab Standard Time
  ARGENTINASTANDARDTIME: "America/Argentina/Buenos_Aires", // Argentina Standard Time (CLDR: America/Buenos_Aires)
  ASTRAKHANSTANDARDTIME: "Europe/Astrakhan", // Astrakhan Standard Time
  ATLANTICSTANDARDTIME: "America/Halifax", // Atlantic Standard Time
  AUSCENTRALSTANDARDTIME: "Australia/Darwin", // AUS Central Standard Time
  AUSCENTRALWSTANDARDTIME: "Australia/Eucla", // Aus Central W. Standard Time
  AUSEASTERNSTANDARDTIME: "Australia/Sydney", // AUS Eastern Standard Time
  AZERBAIJANSTANDARDTIME: "Asia/Baku", // Azerbaijan Standard Time
  AZORESSTANDARDTIME: "Atlantic/Azores", // Azores Standard Time
  BAHIASTANDARDTIME: "America/Bahia", // Bahia Standard Time
  BANGLADESHSTANDARDTIME: "Asia/Dhaka", // Bangladesh Standard Time
  BELARUSSTANDARDTIME: "Europe/Minsk", // Belarus Standard Time
  BOUGAINVILLESTANDARDTIME: "Pacific/Bougainville", // Bougainville Standard Time
  CANADACENTRALSTANDARDTIME: "America/Regina", // Canada Central Standard Time
  CAPEVERDESTANDARDTIME: "Atlantic/Cape_Verde", // Cape Verde Standard Time
  CAUCASUSSTANDARDTIME: "Asia/Yerevan", // Caucasus Standard Time
  CENAUSTRALIASTANDARDTIME: "Australia/Adelaide", // Cen. Australia Standard Time
  CENTRALAMERICASTANDARDTIME: "America/Guatemala", // Central America Standard Time
  CENTRALASIASTANDARDTIME: "Asia/Bishkek", // Central Asia Standard Time
  CENTRALBRAZILIANSTANDARDTIME: "America/Cuiaba", // Central Brazilian Standard Time
  CENTRALEUROPEANSTANDARDTIME: "Europe/Warsaw", // Central European Standard Time
  CENTRALEUROPESTANDARDTIME: "Europe/Budapest", // Central Europe Standard Time
  CENTRALPACIFICSTANDARDTIME: "Pacific/Guadalcanal", // Central Pacific Standard Time
  CENTRALSTANDARDTIME: "America/Chicago", // Central Standard Time
  "CENTRALSTANDARDTIME(MEXICO)": "America/Mexico_City", // Central Standard Time (Mexico)
  CHATHAMISLANDSSTANDARDTIME: "Pacific/Chatham", // Chatham Islands Standard Time
  CHINASTANDARDTIME: "Asia/Shanghai", // China Standard Time
  CUBASTANDARDTIME: "America/Havana", // Cuba Standard Time
  DATELINESTANDARDTIME: "Etc/GMT+12", // Dateline Standard Time
  EAFRICASTANDARDTIME: "Africa/Nairobi", // E. Africa Standard Time
  EASTERISLANDSTANDARDTIME: "Pacific/Easter", // Easter Island Standard Time
  EASTERNSTANDARDTIME: "America/New_York", // Eastern Standard Time
  "EASTERNSTANDARDTIME(MEXICO)": "America/Cancun", // Eastern Standard Time (Mexico)
  EAUSTRALIASTANDARDTIME: "Australia/Brisbane", // E. Australia Standard Time
  EEUROPESTANDARDTIME: "Europe/Chisinau", // E. Europe Standard Time
  EGYPTSTANDARDTIME: "Africa/Cairo", // Egypt Standard Time
  EKATERINBURGSTANDARDTIME: "Asia/Yekaterinburg", // Ekaterinburg Standard Time
  ESOUTHAMERICASTANDARDTIME: "America/Sao_Paulo", // E. South America Standard Time
  FIJISTANDARDTIME: "Pacific/Fiji", // Fiji Standard Time
  FLESTANDARDTIME: "Europe/Kyiv", // FLE Standard Time (CLDR: Europe/Kiev)
  GEORGIANSTANDARDTIME: "Asia/Tbilisi", // Georgian Standard Time
  GMTSTANDARDTIME: "Europe/London", // GMT Standard Time
  GREENLANDSTANDARDTIME: "America/Nuuk", // Greenland Standard Time (CLDR: America/Godthab)
  GREENWICHSTANDARDTIME: "Atlantic/Reykjavik", // Greenwich Standard Time
  GTBSTANDARDTIME: "Europe/Bucharest", // GTB Standard Time
  HAITISTANDARDTIME: "America/Port-au-Prince", // Haiti Standard Time
  HAWAIIANSTANDARDTIME: "Pacific/Honolulu", // Hawaiian Standard Time
  INDIASTANDARDTIME: "Asia/Kolkata", // India Standard Time (CLDR: Asia/Calcutta)
  IRANSTANDARDTIME: "Asia/Tehran", // Iran Standard Time
  ISRAELSTANDARDTIME: "Asia/Jerusalem", // Israel Standard Time
  JORDANSTANDARDTIME: "Asia/Amman", // Jordan Standard Time
  KALININGRADSTANDARDTIME: "Europe/Kaliningrad", // Kaliningrad Standard Time
  KAMCHATKASTANDARDTIME: "Asia/Kamchatka", // Kamchatka Standard Time (dropped from CLDR)
  KOREASTANDARDTIME: "Asia/Seoul", // Korea Standard Time
  LIBYASTANDARDTIME: "Africa/Tripoli", // Libya Standard Time
  LINEISLANDSSTANDARDTIME: "Pacific/Kiritimati", // Line Islands Standard Time
  LORDHOWESTANDARDTIME: "Australia/Lord_Howe", // Lord Howe Standard Time
  MAGADANSTANDARDTIME: "Asia/Magadan", // Magadan Standard Time
  MAGALLANESSTANDARDTIME: "America/Punta_Arenas", // Magallanes Standard Time
  MARQUESASSTANDARDTIME: "Pacific/Marquesas", // Marquesas Standard Time
  MAURITIUSSTANDARDTIME: "Indian/Mauritius", // Mauritius Standard Time
  MIDATLANTICSTANDARDTIME: "Atlantic/South_Georgia", // Mid-Atlantic Standard Time (dropped from CLDR)
  MIDDLEEASTSTANDARDTIME: "Asia/Beirut", // Middle East Standard Time
  MONTEVIDEOSTANDARDTIME: "America/Montevideo", // Montevideo Standard Time
  MOROCCOSTANDARDTIME: "Africa/Casablanca", // Morocco Standard Time
  MOUNTAINSTANDARDTIME: "America/Denver", // Mountain Standard Time
  "MOUNTAINSTANDARDTIME(MEXICO)": "America/Mazatlan", // Mountain Standard Time (Mexico)
  MYANMARSTANDARDTIME: "Asia/Yangon", // Myanmar Standard Time (CLDR: Asia/Rangoon)
  NAMIBIASTANDARDTIME: "Africa/Windhoek", // Namibia Standard Time
  NCENTRALASIASTANDARDTIME: "Asia/Novosibirsk", // N. Central Asia Standard Time
  NEPALSTANDARDTIME: "Asia/Kathmandu", // Nepal Standard Time (CLDR: Asia/Katmandu)
  NEWFOUNDLANDSTANDARDTIME: "America/St_Johns", // Newfoundland Standard Time
  NEWZEALANDSTANDARDTIME: "Pacific/Auckland", // New Zealand Standard Time
  NORFOLKSTANDARDTIME: "Pacific/Norfolk", // Norfolk Standard Time
  NORTHASIAEASTSTANDARDTIME: "Asia/Irkutsk", // North Asia East Standard Time
  NORTHASIASTANDARDTIME: "Asia/Krasnoyarsk", // North Asia Standard Time
  NORTHKOREASTANDARDTIME: "Asia/Pyongyang", // North Korea Standard Time
  OMSKSTANDARDTIME: "Asia/Omsk", // Omsk Standard Time
  PACIFICSASTANDARDTIME: "America/Santiago", // Pacific SA Standard Time
  PACIFICSTANDARDTIME: "America/Los_Angeles", // Pacific Standard Time
  "PACIFICSTANDARDTIME(MEXICO)": "America/Tijuana", // Pacific Standard Time (Mexico)
  PAKISTANSTANDARDTIME: "Asia/Karachi", // Pakistan Standard Time
  PARAGUAYSTANDARDTIME: "America/Asuncion", // Paraguay Standard Time
  QYZYLORDASTANDARDTIME: "Asia/Qyzylorda", // Qyzylorda Standard Time
  ROMANCESTANDARDTIME: "Europe/Paris", // Romance Standard Time
  RUSSIANSTANDARDTIME: "Europe/Moscow", // Russian Standard Time
  RUSSIATIMEZONE10: "Asia/Srednekolymsk", // Russia Time Zone 10
  RUSSIATIMEZONE11: "Asia/Kamchatka", // Russia Time Zone 11
  RUSSIATIMEZONE3: "Europe/Samara", // Russia Time Zone 3
  SAEASTERNSTANDARDTIME: "America/Cayenne", // SA Eastern Standard Time
  SAINTPIERRESTANDARDTIME: "America/Miquelon", // Saint Pierre Standard Time
  SAKHALINSTANDARDTIME: "Asia/Sakhalin", // Sakhalin Standard Time
  SAMOASTANDARDTIME: "Pacific/Apia", // Samoa Standard Time
  SAOTOMESTANDARDTIME: "Africa/Sao_Tome", // Sao Tome Standard Time
  SAPACIFICSTANDARDTIME: "America/Bogota", // SA Pacific Standard Time
  SARATOVSTANDARDTIME: "Europe/Saratov", // Saratov Standard Time
  SAWESTERNSTANDARDTIME: "America/La_Paz", // SA Western Standard Time
  SEASIASTANDARDTIME: "Asia/Bangkok", // SE Asia Standard Time
  SINGAPORESTANDARDTIME: "Asia/Singapore", // Singapore Standard Time
  SOUTHAFRICASTANDARDTIME: "Africa/Johannesburg", // South Africa Standard Time
  SOUTHSUDANSTANDARDTIME: "Africa/Juba", // South Sudan Standard Time
  SRILANKASTANDARDTIME: "Asia/Colombo", // Sri Lanka Standard Time
  SUDANSTANDARDTIME: "Africa/Khartoum", // Sudan Standard Time
  SYRIASTANDARDTIME: "Asia/Damascus", // Syria Standard Time
  TAIPEISTANDARDTIME: "Asia/Taipei", // Taipei Standard Time
  TASMANIASTANDARDTIME: "Australia/Hobart", // Tasmania Standard Time
  TOCANTINSSTANDARDTIME: "America/Araguaina", // Tocantins Standard Time
  TOKYOSTANDARDTIME: "Asia/Tokyo", // Tokyo Standard Time
  TOMSKSTANDARDTIME: "Asia/Tomsk", // Tomsk Standard Time
  TONGASTANDARDTIME: "Pacific/Tongatapu", // Tonga Standard Time
  TRANSBAIKALSTANDARDTIME: "Asia/Chita", // Transbaikal Standard Time
  TURKEYSTANDARDTIME: "Europe/Istanbul", // Turkey Standard Time
  TURKSANDCAICOSSTANDARDTIME: "America/Grand_Turk", // Turks And Caicos Standard Time
  ULAANBAATARSTANDARDTIME: "Asia/Ulaanbaatar", // Ulaanbaatar Standard Time
  USEASTERNSTANDARDTIME: "America/Indiana/Indianapolis", // US Eastern Standard Time (CLDR: America/Indianapolis)
  USMOUNTAINSTANDARDTIME: "America/Phoenix", // US Mountain Standard Time
  UTC: "Etc/UTC", // UTC
  "UTC+12": "Etc/GMT-12", // UTC+12
  "UTC+13": "Etc/GMT-13", // UTC+13
  UTC02: "Etc/GMT+2", // UTC-02
  UTC08: "Etc/GMT+8", // UTC-08
  UTC09: "Etc/GMT+9", // UTC-09
  UTC11: "Etc/GMT+11", // UTC-11
  VENEZUELASTANDARDTIME: "America/Caracas", // Venezuela Standard Time
  VLADIVOSTOKSTANDARDTIME: "Asia/Vladivostok", // Vladivostok Standard Time
  VOLGOGRADSTANDARDTIME: "Europe/Volgograd", // Volgograd Standard Time
  WAUSTRALIASTANDARDTIME: "Australia/Perth", // W. Australia Standard Time
  WCENTRALAFRICASTANDARDTIME: "Africa/Lagos", // W. Central Africa Standard Time
  WESTASIASTANDARDTIME: "Asia/Tashkent", // West Asia Standard Time
  WESTBANKSTANDARDTIME: "Asia/Hebron", // West Bank Standard Time
  WESTPACIFICSTANDARDTIME: "Pacific/Port_Moresby", // West Pacific Standard Time
  WEUROPESTANDARDTIME: "Europe/Berlin", // W. Europe Standard Time
  WMONGOLIASTANDARDTIME: "Asia/Hovd", // W. Mongolia Standard Time
  YAKUTSKSTANDARDTIME: "Asia/Yakutsk", // Yakutsk Standard Time
  YUKONSTANDARDTIME: "America/Whitehorse", // Yukon Standard Time
};

/** What the spec falls back to when the ledger's zone is missing or unknown. */
export const DEFAULT_TIMEZONE = "Australia/Sydney";

/** A Windows zone id in Xero's form: upper case, without spaces, dots or hyphens. */
export function normaliseWindowsTimezone(name: string): string {
  return name.toUpperCase().replace(/[\s.-]/g, "");
}

/**
 * The IANA zone for a ledger timezone. Accepts Xero's enum form (`AUSEASTERNSTANDARDTIME`), the
 * Windows display form (`AUS Eastern Standard Time`), and IANA names already in the table's
 * range (`Australia/Brisbane`). Anything else, or nothing, gives `Australia/Sydney`.
 */
export function ianaFromLedgerTimezone(name: string | null | undefined): string {
  if (!name) return DEFAULT_TIMEZONE;
  const mapped = WINDOWS_TIMEZONES[normaliseWindowsTimezone(name)];
  if (mapped) return mapped;
  if (IANA_VALUES.has(name)) return name;
  return DEFAULT_TIMEZONE;
}

const IANA_VALUES = new Set(Object.values(WINDOWS_TIMEZONES));
