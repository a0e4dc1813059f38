-- The 23 table-property flags of every HCT, computed from its laid-out header trees and cells,
-- never copied from the template (see macro hct_properties; definitions in docs/properties.md).
{{ hct_properties() }}
