//! The simulator's fixed reference data: countries, identifier services and their formats,
//! cities, streets, legal forms and the words company names are made of.
//!
//! Only data lives here; `dataset` turns it into companies.

/// How a registry identifier is spelled. The number behind it is scrambled per service,
/// so identifiers look random yet map back to their company without any table.
#[derive(Debug, Clone, Copy)]
pub struct IdFormat {
    pub prefix: &'static str,
    /// Scrambled digits before any check digits.
    pub digits: u32,
    pub check: Check,
    pub suffix: &'static str,
    /// Separator inserted after this many characters of prefix and digits (e.g. `21/815/08150`).
    pub groups: &'static [usize],
    pub separator: char,
    /// Services that share the number (an Italian VAT number is the fiscal code).
    pub number_of: Option<&'static str>,
    /// A SIRET: the company's SIREN, an establishment number and a Luhn check.
    pub siret: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    None,
    /// One digit making the whole number pass the Luhn test (SIREN, SIRET, CIF, P.IVA).
    Luhn,
    /// Two digits: 97 − (number mod 97) (Belgian enterprise numbers).
    Mod97,
}

const fn fmt(prefix: &'static str, digits: u32, check: Check) -> IdFormat {
    IdFormat {
        prefix,
        digits,
        check,
        suffix: "",
        groups: &[],
        separator: ' ',
        number_of: None,
        siret: false,
    }
}

/// An identifier service of one country and how often its companies carry it.
#[derive(Debug, Clone, Copy)]
pub struct ServiceSpec {
    pub code: &'static str,
    pub label: &'static str,
    pub format: IdFormat,
    /// Percentage of the country's companies that have this identifier.
    pub presence: u8,
}

const fn svc(
    code: &'static str,
    label: &'static str,
    format: IdFormat,
    presence: u8,
) -> ServiceSpec {
    ServiceSpec {
        code,
        label,
        format,
        presence,
    }
}

/// A city and the shape of its postcodes: `#` a digit, `@` a letter, anything else as is.
pub type City = (&'static str, &'static str);

/// One of the ten countries the service rates.
#[derive(Debug)]
pub struct RatedCountry {
    pub code: &'static str,
    pub name: &'static str,
    pub services: &'static [ServiceSpec],
    pub cities: &'static [City],
    pub streets: &'static [&'static str],
    pub legal_forms: &'static [&'static str],
    /// Phone pattern in the same `#` notation as postcodes.
    pub phone: &'static str,
}

const DUN: IdFormat = fmt("", 9, Check::None);

pub const RATED: [RatedCountry; 10] = [
    RatedCountry {
        code: "FR",
        name: "France",
        services: &[
            svc(
                "SIREN",
                "Company registration number (SIREN)",
                fmt("", 8, Check::Luhn),
                100,
            ),
            svc(
                "SIRET",
                "Establishment registration number (SIRET)",
                IdFormat {
                    siret: true,
                    number_of: Some("SIREN"),
                    ..fmt("", 8, Check::Luhn)
                },
                100,
            ),
        ],
        cities: &[
            ("Paris", "75###"),
            ("Lyon", "690##"),
            ("Marseille", "130##"),
            ("Toulouse", "310##"),
            ("Nantes", "440##"),
            ("Lille", "590##"),
            ("Bordeaux", "330##"),
            ("Strasbourg", "670##"),
        ],
        streets: &[
            "Rue de la République",
            "Avenue Jean Jaurès",
            "Boulevard Voltaire",
            "Rue Victor Hugo",
            "Place de la Gare",
            "Rue du Commerce",
        ],
        legal_forms: &["SAS", "SARL", "SA", "EURL"],
        phone: "+33 # ## ## ## ##",
    },
    RatedCountry {
        code: "GB",
        name: "United Kingdom",
        services: &[
            svc(
                "CRO",
                "Company registration number",
                fmt("0", 7, Check::None),
                100,
            ),
            svc(
                "EXDIURN",
                "Trading address URN (credit bureau)",
                fmt("", 10, Check::None),
                60,
            ),
        ],
        cities: &[
            ("London", "EC1A #@@"),
            ("Manchester", "M1 #@@"),
            ("Birmingham", "B2 #@@"),
            ("Leeds", "LS1 #@@"),
            ("Glasgow", "G1 #@@"),
            ("Bristol", "BS1 #@@"),
            ("Liverpool", "L1 #@@"),
            ("Edinburgh", "EH1 #@@"),
        ],
        streets: &[
            "High Street",
            "Station Road",
            "Church Lane",
            "Victoria Road",
            "Mill Lane",
            "King Street",
        ],
        legal_forms: &["Ltd", "PLC", "LLP"],
        phone: "+44 20 #### ####",
    },
    RatedCountry {
        code: "IE",
        name: "Ireland",
        services: &[
            svc("CNIE", "Company number", fmt("", 6, Check::None), 100),
            svc(
                "EXDIURN",
                "Trading address URN (credit bureau)",
                fmt("", 10, Check::None),
                60,
            ),
        ],
        cities: &[
            ("Dublin", "D02 @###"),
            ("Cork", "T12 @###"),
            ("Galway", "H91 @###"),
            ("Limerick", "V94 @###"),
            ("Waterford", "X91 @###"),
            ("Kilkenny", "R95 @###"),
            ("Sligo", "F91 @###"),
            ("Athlone", "N37 @###"),
        ],
        streets: &[
            "Main Street",
            "O'Connell Street",
            "Grafton Street",
            "Dame Street",
            "Patrick Street",
            "Shop Street",
        ],
        legal_forms: &["Ltd", "DAC", "PLC"],
        phone: "+353 1 ### ####",
    },
    RatedCountry {
        code: "DE",
        name: "Germany",
        services: &[
            svc(
                "COC",
                "Chamber of commerce number",
                fmt("HRB ", 6, Check::None),
                100,
            ),
            svc(
                "FCDE",
                "Fiscal code",
                IdFormat {
                    groups: &[2, 5],
                    separator: '/',
                    ..fmt("", 10, Check::None)
                },
                70,
            ),
            svc("CREF", "Credit reform number", fmt("", 10, Check::None), 60),
            svc("BWI", "Credit bureau number", fmt("", 9, Check::None), 40),
            svc("DUN", "DUNS number", DUN, 40),
        ],
        cities: &[
            ("Berlin", "10###"),
            ("Hamburg", "20###"),
            ("München", "80###"),
            ("Köln", "50###"),
            ("Frankfurt am Main", "60###"),
            ("Stuttgart", "70###"),
            ("Düsseldorf", "40###"),
            ("Leipzig", "04###"),
        ],
        streets: &[
            "Hauptstraße",
            "Bahnhofstraße",
            "Schillerstraße",
            "Goethestraße",
            "Königsallee",
            "Marktplatz",
        ],
        legal_forms: &["GmbH", "AG", "KG", "GmbH & Co. KG"],
        phone: "+49 30 #######",
    },
    RatedCountry {
        code: "ES",
        name: "Spain",
        services: &[
            svc("CIF", "CIF number (VAT)", fmt("B", 7, Check::Luhn), 100),
            svc("DUN", "DUNS number", DUN, 50),
        ],
        cities: &[
            ("Madrid", "28###"),
            ("Barcelona", "08###"),
            ("Valencia", "46###"),
            ("Sevilla", "41###"),
            ("Bilbao", "48###"),
            ("Málaga", "29###"),
            ("Zaragoza", "50###"),
            ("Alicante", "03###"),
        ],
        streets: &[
            "Calle Mayor",
            "Gran Vía",
            "Calle de Alcalá",
            "Avenida de la Constitución",
            "Calle Real",
            "Paseo de Gracia",
        ],
        legal_forms: &["SL", "SA"],
        phone: "+34 9## ### ###",
    },
    RatedCountry {
        code: "BE",
        name: "Belgium",
        services: &[
            svc(
                "RCBE",
                "Trade register number",
                IdFormat {
                    groups: &[4, 7],
                    separator: '.',
                    ..fmt("0", 7, Check::Mod97)
                },
                100,
            ),
            svc(
                "ONSS",
                "Social security number",
                fmt("", 9, Check::None),
                70,
            ),
            svc("DUN", "DUNS number", DUN, 50),
            svc("EURODB", "EURODB", fmt("EU", 8, Check::None), 30),
        ],
        cities: &[
            ("Bruxelles", "10##"),
            ("Antwerpen", "20##"),
            ("Gent", "90##"),
            ("Liège", "40##"),
            ("Charleroi", "60##"),
            ("Namur", "50##"),
            ("Brugge", "80##"),
            ("Leuven", "30##"),
        ],
        streets: &[
            "Rue Neuve",
            "Meir",
            "Avenue Louise",
            "Veldstraat",
            "Rue de la Loi",
            "Korenmarkt",
        ],
        legal_forms: &["SRL", "SA", "BV", "NV"],
        phone: "+32 2 ### ## ##",
    },
    RatedCountry {
        code: "LU",
        name: "Luxembourg",
        services: &[
            svc(
                "RCLU",
                "Trade register number",
                fmt("B", 6, Check::None),
                100,
            ),
            svc("MERCAT", "MERCAT", fmt("", 11, Check::None), 60),
        ],
        cities: &[
            ("Luxembourg", "L-1###"),
            ("Esch-sur-Alzette", "L-4###"),
            ("Differdange", "L-45##"),
            ("Dudelange", "L-34##"),
            ("Ettelbruck", "L-90##"),
            ("Diekirch", "L-92##"),
            ("Wiltz", "L-95##"),
            ("Echternach", "L-64##"),
        ],
        streets: &[
            "Grand-Rue",
            "Avenue de la Liberté",
            "Rue de l'Alzette",
            "Boulevard Royal",
            "Route d'Arlon",
            "Rue du Fossé",
        ],
        legal_forms: &["SARL", "SA", "SCS"],
        phone: "+352 ## ## ##",
    },
    RatedCountry {
        code: "NL",
        name: "Netherlands",
        services: &[
            svc(
                "KVK",
                "Chamber of commerce number",
                fmt("", 8, Check::None),
                100,
            ),
            svc(
                "TVANL",
                "VAT number",
                IdFormat {
                    suffix: "B01",
                    ..fmt("NL", 9, Check::None)
                },
                80,
            ),
            svc(
                "GRAY",
                "Credit bureau company number",
                fmt("", 9, Check::None),
                50,
            ),
            svc("DUN", "DUNS number", DUN, 40),
        ],
        cities: &[
            ("Amsterdam", "10## @@"),
            ("Rotterdam", "30## @@"),
            ("Den Haag", "25## @@"),
            ("Utrecht", "35## @@"),
            ("Eindhoven", "56## @@"),
            ("Groningen", "97## @@"),
            ("Tilburg", "50## @@"),
            ("Breda", "48## @@"),
        ],
        streets: &[
            "Kalverstraat",
            "Coolsingel",
            "Damrak",
            "Oudegracht",
            "Stationsplein",
            "Hoofdstraat",
        ],
        legal_forms: &["BV", "NV"],
        phone: "+31 20 ### ####",
    },
    RatedCountry {
        code: "IT",
        name: "Italy",
        services: &[
            svc(
                "COFIS",
                "Registration number (codice fiscale)",
                fmt("", 10, Check::Luhn),
                100,
            ),
            svc(
                "TVAIT",
                "VAT number",
                IdFormat {
                    number_of: Some("COFIS"),
                    ..fmt("IT", 10, Check::Luhn)
                },
                100,
            ),
            svc(
                "CCIAA",
                "Trade register (REA)",
                fmt("MI-", 7, Check::None),
                70,
            ),
            svc("SIACID", "SIACID", fmt("", 8, Check::None), 30),
        ],
        cities: &[
            ("Milano", "201##"),
            ("Roma", "001##"),
            ("Torino", "101##"),
            ("Napoli", "801##"),
            ("Firenze", "501##"),
            ("Bologna", "401##"),
            ("Genova", "161##"),
            ("Venezia", "301##"),
        ],
        streets: &[
            "Via Roma",
            "Corso Italia",
            "Via Garibaldi",
            "Via Dante",
            "Piazza del Duomo",
            "Via Mazzini",
        ],
        legal_forms: &["SRL", "SPA", "SNC"],
        phone: "+39 02 #### ####",
    },
    RatedCountry {
        code: "CN",
        name: "China",
        services: &[
            svc(
                "RNCN",
                "Registration number",
                fmt("91310000", 10, Check::None),
                100,
            ),
            svc(
                "OCCN",
                "Organization code",
                IdFormat {
                    groups: &[8],
                    separator: '-',
                    ..fmt("", 8, Check::Luhn)
                },
                60,
            ),
            svc("VATCN", "VAT number", fmt("", 15, Check::None), 60),
        ],
        cities: &[
            ("Shanghai", "200###"),
            ("Beijing", "100###"),
            ("Shenzhen", "518###"),
            ("Guangzhou", "510###"),
            ("Hangzhou", "310###"),
            ("Chengdu", "610###"),
            ("Wuhan", "430###"),
            ("Tianjin", "300###"),
        ],
        streets: &[
            "Nanjing Road",
            "Chang'an Avenue",
            "Huaihai Road",
            "Renmin Road",
            "Jiefang Road",
            "Zhongshan Road",
        ],
        legal_forms: &["Co. Ltd"],
        phone: "+86 21 #### ####",
    },
];

/// French overseas territories: SIREN and SIRET apply there too, though no company of the
/// simulated dataset is registered in them.
pub const FRENCH_TERRITORIES: [(&str, &str); 7] = [
    ("GF", "French Guiana"),
    ("GP", "Guadeloupe"),
    ("MQ", "Martinique"),
    ("YT", "Mayotte"),
    ("RE", "Réunion"),
    ("PM", "Saint Pierre and Miquelon"),
    ("WF", "Wallis and Futuna"),
];

/// Countries the lookup lists but the service does not rate.
pub const UNRATED: [(&str, &str); 14] = [
    ("AT", "Austria"),
    ("CH", "Switzerland"),
    ("CZ", "Czechia"),
    ("DK", "Denmark"),
    ("FI", "Finland"),
    ("GR", "Greece"),
    ("JP", "Japan"),
    ("NO", "Norway"),
    ("PL", "Poland"),
    ("PT", "Portugal"),
    ("SE", "Sweden"),
    ("SG", "Singapore"),
    ("US", "United States"),
    ("CA", "Canada"),
];

/// Names are "first second third [number] [Holding] legal-form"; each word normalizes to one
/// token used in no other position, which is what lets a name, or any of its words, be read
/// back into the companies it was made for.
pub const FIRST: &[&str] = &[
    "Martin",
    "Dubois",
    "Lefèvre",
    "Moreau",
    "Girard",
    "Mercier",
    "Rousseau",
    "Fontaine",
    "Chevalier",
    "Garnier",
    "Müller",
    "Schneider",
    "Fischer",
    "Weber",
    "Becker",
    "Wagner",
    "Hoffmann",
    "Krüger",
    "Smith",
    "Taylor",
    "Brown",
    "Wilson",
    "Walker",
    "Wright",
    "Murphy",
    "Kelly",
    "Byrne",
    "Gallagher",
    "García",
    "Fernández",
    "López",
    "Martínez",
    "Sánchez",
    "Núñez",
    "Peeters",
    "Janssens",
    "Maes",
    "Claes",
    "Dekker",
    "Visser",
    "Bakker",
    "Jansen",
    "Meijer",
    "Rossi",
    "Russo",
    "Ferrari",
    "Esposito",
    "Bianchi",
    "Romano",
    "Colombo",
    "Ricci",
    "Conti",
    "Wang",
    "Zhang",
    "Chen",
    "Liu",
    "Huang",
    "Zhao",
    "Schmitt",
    "Weiss",
];

pub const SECOND: &[&str] = &[
    "Transports",
    "Logistique",
    "Bâtiment",
    "Conseil",
    "Distribution",
    "Industrie",
    "Imprimerie",
    "Boulangerie",
    "Électricité",
    "Plomberie",
    "Menuiserie",
    "Métallurgie",
    "Textiles",
    "Informatique",
    "Pharma",
    "Chimie",
    "Énergie",
    "Immobilier",
    "Agro",
    "Automobiles",
    "Optique",
    "Emballages",
    "Peintures",
    "Travaux",
    "Services",
    "Négoce",
    "Import",
    "Export",
    "Marine",
    "Aviation",
    "Télécom",
    "Médical",
    "Hôtellerie",
    "Restauration",
    "Sécurité",
    "Nettoyage",
    "Papeterie",
    "Verrerie",
    "Céramique",
    "Plastiques",
    "Mécanique",
    "Hydraulique",
    "Robotique",
    "Software",
    "Engineering",
    "Trading",
    "Foods",
    "Motors",
    "Systems",
    "Solutions",
];

pub const THIRD: &[&str] = &[
    "Atlantique",
    "Méditerranée",
    "Nord",
    "Sud",
    "Est",
    "Ouest",
    "Central",
    "Alpes",
    "Rhône",
    "Loire",
    "Europe",
    "International",
    "Global",
    "Union",
    "Premier",
    "Royal",
    "National",
    "Express",
    "Moderne",
    "Nouvelle",
    "Générale",
    "Continental",
    "Pacific",
    "Atlas",
    "Horizon",
    "Delta",
    "Omega",
    "Alpha",
    "Orion",
    "Vega",
    "Phoenix",
    "Summit",
    "Pioneer",
    "Crown",
    "Lion",
    "Étoile",
    "& Associés",
    "& Fils",
    "& Cie",
    "Partners",
];

/// The word that sets the third member of a same-name group apart.
pub const HOLDING: &str = "Holding";
