-- One row per customer; emails, country codes and tiers normalised.
select
    customer_id,
    nullif(lower(trim(email)), '')          as email,
    trim(full_name)                         as full_name,
    nullif(upper(trim(country_code)), '')   as country_code,
    signup_date,
    lower(trim(loyalty_tier))               as loyalty_tier
from {{ ref('customers') }}
